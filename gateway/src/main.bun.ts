import { startProcess } from "@ws/shared";
import { bunRuntime } from "@ws/shared/runtime/bun";
import { bootGateway } from "./boot";

await startProcess(bunRuntime, () => bootGateway(bunRuntime));
