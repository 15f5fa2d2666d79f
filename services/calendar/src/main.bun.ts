import { bootService, startProcess } from "@ws/shared";
import { bunRuntime } from "@ws/shared/runtime/bun";
import { calendarService } from "./definition";

await startProcess(bunRuntime, () => bootService(calendarService));
