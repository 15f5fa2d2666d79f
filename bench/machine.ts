import { readdirSync, readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

export interface Machine {
  nproc: number;
  cpu_model: string;
  memory_gb: number;
  bun: string;
  postgres?: string;
  redis?: string;
}

export function describeMachine(): Machine {
  const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? cpus()[0]?.model ?? "unknown";
  return { nproc: cpus().length, cpu_model: model.trim(), memory_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10, bun: Bun.version };
}

export interface MemoryPeak {
  /** VmRSS when sampling began, before the load. */
  idle_rss_mb: number;
  /** VmHWM: the kernel's own peak resident set since the process started. */
  hwm_mb: number;
  /** The largest VmRSS seen while sampling. */
  sampled_rss_mb: number;
}

function statusKb(pid: number, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Samples the resident set of some processes; `peaks()` reads VmHWM too. */
export function memorySampler(processes: { name: string; pid: number }[]) {
  const rss = new Map<string, number>();
  const idle = new Map(processes.map(({ name, pid }) => [name, statusKb(pid, "VmRSS")]));
  const mb = (kb: number) => Math.round(kb / 102.4) / 10;
  return {
    sample() {
      for (const { name, pid } of processes) rss.set(name, Math.max(rss.get(name) ?? 0, statusKb(pid, "VmRSS")));
    },
    peaks(): Record<string, MemoryPeak> {
      this.sample();
      return Object.fromEntries(
        processes.map(({ name, pid }) => [
          name,
          { idle_rss_mb: mb(idle.get(name) ?? 0), hwm_mb: mb(statusKb(pid, "VmHWM")), sampled_rss_mb: mb(rss.get(name) ?? 0) },
        ]),
      );
    },
  };
}

const TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used so far (from /proc/<pid>/stat). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** The local redis-server, found by name, so its share of the CPU shows in the breakdown. */
export function redisServerPid(): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "redis-server") return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
