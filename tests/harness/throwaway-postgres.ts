import { execFile, execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePortBlock } from "./ports";

const run = promisify(execFile);

/** The PostgreSQL server binaries: PG_BIN, or the newest under /usr/lib/postgresql. */
function serverBinaries(): string | undefined {
  if (process.env.PG_BIN) return existsSync(join(process.env.PG_BIN, "initdb")) ? process.env.PG_BIN : undefined;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((name) => existsSync(join(root, name, "bin", "initdb")));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : undefined;
}

const BIN = serverBinaries();
const AS_ROOT = process.getuid?.() === 0;
/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user. */
const RUNNER = AS_ROOT ? "postgres" : undefined;

/** Fault tests need their own server to stop and restart: the machine's shared one is never touched. */
export const canRunThrowawayPostgres = BIN !== undefined && (!AS_ROOT || existsSync("/usr/sbin/runuser") || existsSync("/sbin/runuser"));

function command(tool: string, args: string[]) {
  const path = join(BIN!, tool);
  return RUNNER ? run("runuser", ["-u", RUNNER, "--", path, ...args]) : run(path, args);
}

/** Clusters not disposed yet: stopped when the test process exits, even if a hook timed out before `dispose`. */
const running = new Map<string, string>();
process.on("exit", () => {
  for (const [dir, data] of running) {
    const stop = [join(BIN!, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "-t", "10", "stop"];
    try {
      if (RUNNER) execFileSync("runuser", ["-u", RUNNER, "--", ...stop], { stdio: "ignore" });
      else execFileSync(stop[0]!, stop.slice(1), { stdio: "ignore" });
    } catch {
      // already stopped
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A PostgreSQL cluster of its own in a temporary directory, on a free port and a
 * socket in that directory, for tests that stop, restart or lock it. `dispose`
 * stops it and removes the directory.
 */
export async function throwawayPostgres() {
  if (!BIN) throw new Error("no PostgreSQL server binaries (set PG_BIN)");
  const dir = await mkdtemp(join(tmpdir(), "wsapi-pg-"));
  const data = join(dir, "data");
  const port = await freePortBlock(1);
  if (RUNNER) {
    const { stdout } = await run("id", ["-u", RUNNER]);
    const { stdout: group } = await run("id", ["-g", RUNNER]);
    await chown(dir, Number(stdout), Number(group));
  }
  running.set(dir, data);
  await command("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
  const options = [`-p ${port}`, `-k ${dir}`, "-c listen_addresses=127.0.0.1", "-c fsync=off", "-c max_connections=100"].join(" ");
  let paused: number[] = [];
  /** The postmaster and its children. */
  const serverProcesses = (): number[] => {
    const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    const children = readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          // The parent's pid is the field after the name, which is in parentheses and may hold spaces.
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
          return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster;
        } catch {
          return false;
        }
      })
      .map(Number);
    return [postmaster, ...children];
  };
  const server = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await command("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "server.log"), "-w", "-t", "60", "start"]);
    },
    /** A fast shutdown: clients are disconnected, open transactions roll back. */
    async stop() {
      await command("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]).catch(() => undefined);
    },
    /**
     * Stops the server and every backend in their tracks (SIGSTOP), as a host
     * that stalls would: connections stay open and nothing answers, not even
     * an error. `resume` lets them go on.
     */
    pause() {
      paused = serverProcesses();
      for (const pid of paused) process.kill(pid, "SIGSTOP");
    },
    resume() {
      for (const pid of paused.splice(0)) process.kill(pid, "SIGCONT");
    },
    async dispose() {
      server.resume();
      await command("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"]).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
      running.delete(dir);
    },
  };
  await server.start();
  return server;
}
export type ThrowawayPostgres = Awaited<ReturnType<typeof throwawayPostgres>>;
