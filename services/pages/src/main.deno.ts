import { bootService, startProcess } from "@ws/shared";
import { denoRuntime } from "@ws/shared/runtime/deno";
import { pagesService } from "./definition";

await startProcess(denoRuntime, () => bootService(pagesService));
