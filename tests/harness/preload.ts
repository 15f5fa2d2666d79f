import { afterAll } from "bun:test";
import { stopSharedSystem } from "./system";

afterAll(async () => {
  await stopSharedSystem();
});
