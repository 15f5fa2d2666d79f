import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePortBlock, portIsFree, PROCESSES, REPO_ROOT } from "../../../scripts/system";
import { descendants, isAlive, waitFor } from "../../harness/process-tree";
import { TEST_RUNTIME } from "../../harness/system";

describe("when npm run start:gateway runs and is sent SIGTERM", () => {
  test("then the gateway runs with the definition's flags and variables, and stops with the script, leaving no process", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wsapi-run-process-"));
    const port = await freePortBlock(2);
    const npm = spawn("npm", ["run", "--silent", "start:gateway"], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PATH: `${REPO_ROOT}node_modules/.bin:${process.env.PATH}`,
        PORT: String(port),
        ADMIN_PORT: String(port + 1),
        DATA_DIR: dataDir,
        DATABASE_URL: "",
        REDIS_URL: "",
        INTERNAL_SIGNING_KEY: randomBytes(32).toString("base64url"),
        LOG_LEVEL: "warn",
        RUNTIME: TEST_RUNTIME,
      },
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => npm.on("exit", (code) => resolve(code)));
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok === true, 90_000);
      const tree = descendants(npm.pid!);
      const gateway = tree.find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`gateway/src/main.${TEST_RUNTIME}.ts`))!;
      expect(gateway).toBeDefined();
      const argv = readFileSync(`/proc/${gateway}/cmdline`, "utf8").split("\0");
      const { flags, env } = PROCESSES.gateway.runtime[TEST_RUNTIME];
      for (const flag of flags) expect(argv).toContain(flag);
      const environ = readFileSync(`/proc/${gateway}/environ`, "utf8").split("\0");
      for (const [name, value] of Object.entries(env)) expect(environ).toContain(`${name}=${value}`);

      npm.kill("SIGTERM");
      expect(await exited).toBe(0);
      await waitFor(async () => tree.every((pid) => !isAlive(pid)), 20_000);
      expect(await portIsFree(port)).toBe(true);
      expect(await portIsFree(port + 1)).toBe(true);
    } finally {
      npm.kill("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 150_000);
});
