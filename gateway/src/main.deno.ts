import { startProcess } from "@ws/shared";
import { denoRuntime } from "@ws/shared/runtime/deno";
import { bootGateway } from "./boot";

await startProcess(denoRuntime, () => bootGateway(denoRuntime));
