import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../../scripts/system/processes";
import { freePortBlock } from "../../tests/harness/ports";
import { seedTenant } from "../../tests/harness/tenant";
import { childPids } from "./cpu";

export interface LaunchedSystem {
  gatewayUrl: string;
  adminUrl: string;
  adminToken: string;
  signingKey: string;
  pagesUrl: string;
  /** The `npm start` launcher and the processes it started. */
  pids: { launcher: number; gateway: number; pages: number; calendar: number };
  /** The last lines everything wrote, for an error message. */
  tail(): string;
  stop(): Promise<void>;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * The real system as a user starts it: `npm start`'s launcher (scripts/start.ts)
 * with one gateway replica, so the launcher's own CPU (it relays every log
 * line) is on the bill. Output goes to a file, which costs the writers and no
 * reader.
 */
export async function startThroughLauncher(options: { databaseUrl: string; redisUrl: string; env?: Record<string, string> }): Promise<LaunchedSystem> {
  const base = await freePortBlock(4);
  const adminToken = randomBytes(24).toString("base64url");
  const signingKey = randomBytes(32).toString("base64url");
  const dir = mkdtempSync(join(tmpdir(), "bench-system-"));
  const logFile = join(dir, "system.log");
  const fd = openSync(logFile, "w");
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(base),
    ADMIN_PORT: String(base + 1),
    PAGES_PORT: String(base + 2),
    CALENDAR_PORT: String(base + 3),
    GATEWAY_REPLICAS: "1",
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    ADMIN_TOKEN: adminToken,
    INTERNAL_SIGNING_KEY: signingKey,
    DATA_DIR: join(dir, "data"),
    ...options.env,
  };
  const launcher = spawn(`${REPO_ROOT}node_modules/.bin/bun`, [`${REPO_ROOT}scripts/start.ts`], { cwd: REPO_ROOT, env, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  let exited = false;
  const exit = new Promise<void>((resolve) => launcher.on("exit", () => resolve()));
  void exit.then(() => (exited = true));
  const tail = () => readFileSync(logFile, "utf8").split("\n").slice(-30).join("\n");
  const gatewayUrl = `http://127.0.0.1:${base}`;
  const find = (part: string) => childPids(launcher.pid!).find((child) => child.cmdline.includes(part))?.pid;
  let pids: LaunchedSystem["pids"] | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= stopAll());
  const stopAll = async () => {
    const started = pids ? [pids.gateway, pids.pages, pids.calendar] : childPids(launcher.pid!).map((child) => child.pid);
    if (!exited) launcher.kill("SIGTERM");
    await Promise.race([exit, Bun.sleep(20_000)]);
    // Whatever the launcher left behind was started by this bench: stop it by its id.
    for (const pid of started) if (alive(pid)) process.kill(pid, "SIGKILL");
    if (!exited) launcher.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (exited) throw new Error(`the launcher exited before the gateway was ready:\n${tail()}`);
      if (Date.now() > deadline) throw new Error(`the gateway was not ready after 120 s:\n${tail()}`);
      const ready = await fetch(`${gatewayUrl}/readyz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.ok, () => false);
      if (ready) break;
      await Bun.sleep(200);
    }
    const gateway = find("gateway/src/main");
    const pages = find("services/pages/src/main");
    const calendar = find("services/calendar/src/main");
    if (!gateway || !pages || !calendar) throw new Error(`cannot find the launcher's processes: ${JSON.stringify(childPids(launcher.pid!))}`);
    pids = { launcher: launcher.pid!, gateway, pages, calendar };
  } catch (error) {
    await stop();
    throw error;
  }
  return { gatewayUrl, adminUrl: `http://127.0.0.1:${base + 1}`, adminToken, signingKey, pagesUrl: `http://127.0.0.1:${base + 2}`, pids, tail, stop };
}

/** A key of a fresh tenant and the path of one page it created: what every section that loads the full path reads. */
export async function benchPage(system: Pick<LaunchedSystem, "gatewayUrl" | "adminUrl" | "adminToken" | "tail">): Promise<{ headers: Record<string, string>; path: string }> {
  const tenant = await seedTenant({ adminUrl: system.adminUrl, adminToken: system.adminToken });
  const headers = { authorization: `Bearer ${await tenant.key()}` };
  const created = await fetch(`${system.gatewayUrl}/v1/new-page`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ title: "Bench page", content: "A page read over and over by the benchmark." }),
  });
  if (created.status !== 201) throw new Error(`creating the page answered ${created.status}: ${await created.text()}\n${system.tail()}`);
  return { headers, path: `/v1/new-page/${((await created.json()) as { id: string }).id}` };
}
