import { bootService, startProcess } from "@ws/shared";
import { bunRuntime } from "@ws/shared/runtime/bun";
import { pagesService } from "./definition";

await startProcess(bunRuntime, () => bootService(pagesService));
