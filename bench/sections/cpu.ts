import { readdirSync, readFileSync } from "node:fs";
import { Redis } from "ioredis";
import type postgres from "postgres";

/**
 * CPU time of a process in seconds: the sum of its threads' run time from
 * /proc/<pid>/task/<tid>/schedstat (nanoseconds), so many short samples of many
 * processes add up without the 10 ms rounding of /proc/<pid>/stat's ticks.
 * Falls back to the ticks where schedstat is missing; 0 once the process is gone.
 */
export function processCpuSeconds(pid: number): number {
  try {
    let nanoseconds = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        nanoseconds += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // thread ended meanwhile
      }
    }
    if (nanoseconds > 0) return nanoseconds / 1e9;
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** A named role on the request path and how to find its processes now (postgres backends come and go). */
export type ProcessGroups = Record<string, () => number[] | Promise<number[]>>;
type Snapshot = Record<string, Map<number, number>>;

export async function cpuSnapshot(groups: ProcessGroups): Promise<Snapshot> {
  const snapshot: Snapshot = {};
  for (const [name, pids] of Object.entries(groups)) {
    snapshot[name] = new Map((await pids()).map((pid) => [pid, processCpuSeconds(pid)]));
  }
  return snapshot;
}

/**
 * µs of CPU per request of each group between two snapshots. A process that
 * appeared in between counts from zero (it started during the run).
 */
export function cpuPerRequest(before: Snapshot, after: Snapshot, requests: number): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [name, pids] of Object.entries(after)) {
    let seconds = 0;
    for (const [pid, cpu] of pids) seconds += cpu - (before[name]?.get(pid) ?? 0);
    result[name] = Math.round((Math.max(0, seconds) * 1e6) / Math.max(1, requests));
  }
  return result;
}

/** Direct children of a process, from /proc/<pid>/stat's parent field. */
export function childPids(parent: number): { pid: number; cmdline: string }[] {
  const children: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) children.push({ pid: Number(entry), cmdline: readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ") });
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** The 1-minute load average: on a shared machine, what else was running. */
export const loadAverage = () => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);

/**
 * The shared servers on the path: redis-server (when it runs on this machine,
 * its pid from `INFO server`), this benchmark database's PostgreSQL backends
 * (the server may serve other databases too) and PostgreSQL's auxiliary
 * processes, read through `monitor`, a connection of the benchmark's own.
 */
export async function serverGroups(redisUrl: string, monitor: postgres.Sql): Promise<Record<"redis-server" | "postgres" | "postgres aux (shared)", ProcessGroups[string]>> {
  const redis = new Redis(redisUrl, { lazyConnect: true });
  await redis.connect();
  const redisPid = Number(/process_id:(\d+)/.exec(await redis.info("server"))?.[1]);
  redis.disconnect();
  const local = ["127.0.0.1", "localhost", "[::1]"].includes(new URL(redisUrl).hostname);
  const pidsOf = async (rows: Promise<{ pid: number }[]>) => (await rows).map((row) => row.pid);
  return {
    "redis-server": () => (local && redisPid ? [redisPid] : []),
    postgres: () => pidsOf(monitor<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`),
    "postgres aux (shared)": () => pidsOf(monitor<{ pid: number }[]>`select pid from pg_stat_activity where backend_type <> 'client backend'`),
  };
}
