import { afterAll, setDefaultTimeout } from "bun:test";
import { stopSharedSystem } from "./system";

// End-to-end tests start real processes; `bun test` and `npm test` both get this.
setDefaultTimeout(120_000);

afterAll(async () => {
  await stopSharedSystem();
});
