import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { spawn } from "node:child_process";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandFor, REPO_ROOT, runtimeEnv, startChild, stopChild, waitUntilOk, type Child } from "../../../scripts/system/processes";
import { freePortBlock } from "../../harness/ports";
import { sharedSystem, TEST_RUNTIME } from "../../harness/system";
import { exitOf } from "./helpers";

/**
 * Every process listens on HOST (the gateway's internal port on ADMIN_HOST).
 * `npm start` binds the services to 127.0.0.1, so on a developer's machine only
 * the gateway is reachable from the network. Linux routes all of 127.0.0.0/8 to
 * the loopback interface: a listener on 127.0.0.1 refuses 127.0.0.2, a listener
 * on 0.0.0.0 accepts it, which tells the two apart without a second interface.
 */

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.setTimeout(3000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const portOf = (url: string) => Number(new URL(url).port);
const children: Child[] = [];
const folders: string[] = [];

const groups: number[] = [];

/** Stops a whole process group: TERM, then KILL if anything is left after the grace. */
async function stopGroup(pid: number): Promise<void> {
  const alive = () => {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!alive()) return;
  process.kill(-pid, "SIGTERM");
  for (let waited = 0; alive() && waited < 15_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  if (alive()) process.kill(-pid, "SIGKILL");
}

afterAll(async () => {
  await Promise.all(children.map((child) => stopChild(child)));
  await Promise.all(groups.map(stopGroup));
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

/** Environment for a process of our own: embedded storage in a folder of its own, never the run's shared database. */
async function ownEnv(): Promise<Record<string, string>> {
  const dataDir = await mkdtemp(join(tmpdir(), "wsapi-host-"));
  folders.push(dataDir);
  const inherited = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  for (const name of ["DATABASE_URL", "REDIS_URL", "HOST", "ADMIN_HOST", "ADMIN_TOKEN"]) delete inherited[name];
  return { ...inherited, DATA_DIR: dataDir, LOG_LEVEL: "warn", INTERNAL_SIGNING_KEY: "h".repeat(40) };
}

describe("listening addresses", () => {
  test("when the launcher starts the system, then the services listen on 127.0.0.1 only and the gateway on every interface", async () => {
    const system = await sharedSystem();
    for (const url of [system.pagesUrl, system.calendarUrl]) {
      expect(await connects("127.0.0.1", portOf(url))).toBe(true);
      expect(await connects("127.0.0.2", portOf(url))).toBe(false);
    }
    expect(await connects("127.0.0.2", portOf(system.baseUrl))).toBe(true);
  });

  test("when HOST and ADMIN_HOST are set, then the gateway's public and internal listeners and a service bind exactly there", async () => {
    const port = await freePortBlock(3);
    const [adminPort, pagesPort] = [port + 1, port + 2];
    const env = await ownEnv();
    const gateway = startChild("gateway", commandFor("gateway", TEST_RUNTIME), { ...runtimeEnv("gateway", TEST_RUNTIME), ...env, HOST: "127.0.0.2", ADMIN_HOST: "127.0.0.3", PORT: String(port), ADMIN_PORT: String(adminPort) }, () => {});
    const pages = startChild("pages", commandFor("pages", TEST_RUNTIME), { ...runtimeEnv("pages", TEST_RUNTIME), ...env, DATA_DIR: `${env.DATA_DIR}/pages-own`, HOST: "127.0.0.2", PORT: String(pagesPort) }, () => {});
    children.push(gateway, pages);
    await waitUntilOk(`http://127.0.0.2:${port}/healthz`, gateway, 90_000);
    await waitUntilOk(`http://127.0.0.3:${adminPort}/healthz`, gateway, 90_000);
    await waitUntilOk(`http://127.0.0.2:${pagesPort}/healthz`, pages, 90_000);
    expect(await connects("127.0.0.1", port)).toBe(false);
    expect(await connects("127.0.0.2", adminPort)).toBe(false);
    expect(await connects("127.0.0.1", adminPort)).toBe(false);
    expect(await connects("127.0.0.1", pagesPort)).toBe(false);
  });

  test.each([
    ["gateway", "HOST", "example.com"],
    ["gateway", "ADMIN_HOST", "10.0.0.0/8"],
    ["calendar", "HOST", "300.1.1.1"],
  ] as const)("when the %s's %s is %p, then it stops at start naming the variable", async (process, variable, value) => {
    const { code, output } = await exitOf(process, { [variable]: value, INTERNAL_SIGNING_KEY: "h".repeat(40) });
    expect(code).toBe(2);
    expect(output).toContain(variable);
  });

  test("when `npm start` runs, then only the gateway's ports accept connections from outside 127.0.0.1", async () => {
    const base = await freePortBlock(4);
    const env = await ownEnv();
    // Its own process group, so the launcher and everything it started are stopped together whatever state it is in.
    const start = spawn(`${REPO_ROOT}node_modules/.bin/bun`, [`${REPO_ROOT}scripts/start.ts`], {
      cwd: REPO_ROOT,
      detached: true,
      stdio: "ignore",
      env: { ...env, RUNTIME: TEST_RUNTIME, PORT: String(base), ADMIN_PORT: String(base + 1), PAGES_PORT: String(base + 2), CALENDAR_PORT: String(base + 3) },
    });
    groups.push(start.pid!);
    const exited = new Promise<number | null>((resolve) => start.once("exit", resolve));
    await waitUntilOk(`http://127.0.0.1:${base}/healthz`, { name: "npm start", process: start, exited, lastLines: [] }, 120_000);
    expect(await connects("127.0.0.2", base)).toBe(true);
    for (const service of [base + 2, base + 3]) {
      expect(await connects("127.0.0.1", service)).toBe(true);
      expect(await connects("127.0.0.2", service)).toBe(false);
    }
  });
});
