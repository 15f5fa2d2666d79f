import { bootService, startProcess } from "@ws/shared";
import { denoRuntime } from "@ws/shared/runtime/deno";
import { calendarService } from "./definition";

await startProcess(denoRuntime, () => bootService(calendarService));
