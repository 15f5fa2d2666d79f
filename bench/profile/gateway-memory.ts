/**
 * `bun bench/profile/gateway-memory.ts`: where the gateway's resident memory
 * goes under the full path's load (`GET /v1/new-page/{id}`, 50 connections),
 * one gateway alone on real PostgreSQL and Redis, request logs at `warn`.
 * Each run starts a system of its own and prints, for the gateway: resident
 * memory at rest, the kernel's peak (VmHWM) and the largest once-a-second
 * sample under load, anonymous and file-backed resident memory before and
 * after, JavaScriptCore's heap as `/metrics` reports it, the largest
 * mappings, CPU µs a request and req/s.
 *
 * VARIANTS: a JSON list of environments for the gateway, run in turn ROUNDS
 * (1) times each, to compare settings; the default compares the gateway as
 * defined with mimalloc's own defaults for the two options it is given.
 * SECONDS (25) of load a run. Needs DATABASE_URL and REDIS_URL.
 */
import { readFileSync } from "node:fs";
import { freePortBlock, launchSystem, throwawayStorage } from "../../scripts/system";
import { load } from "../load";
import { cpuSeconds } from "../machine";
import { benchPage } from "../sections/launched-system";

const SECONDS = Number(process.env.SECONDS ?? 25);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const VARIANTS: Record<string, string>[] = JSON.parse(process.env.VARIANTS ?? '[{}, {"MIMALLOC_PURGE_DELAY": "100", "MIMALLOC_ARENA_EAGER_COMMIT": "2"}]');
if (!process.env.DATABASE_URL || !process.env.REDIS_URL) throw new Error("needs DATABASE_URL and REDIS_URL");

const megabytes = (pid: number, field: string) => Number(readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+)`, "m"))?.[1] ?? 0) / 1024;
const rounded = (value: number) => Math.round(value * 10) / 10;

/** Resident MB of the process's largest mappings, with their permissions and what backs them. */
function largestMappings(pid: number, count = 4): string[] {
  const mappings: { rss: number; label: string }[] = [];
  let label = "";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const mapping = line.match(/^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/);
    if (mapping) {
      const sizeMb = (parseInt(mapping[2]!, 16) - parseInt(mapping[1]!, 16)) / 1048576;
      label = `${mapping[3]} ${mapping[4] || "anonymous"} (${rounded(sizeMb)} MB mapped)`;
    } else if (line.startsWith("Rss:")) {
      mappings.push({ rss: Number(line.split(/\s+/)[1]) / 1024, label });
    }
  }
  return mappings.sort((a, b) => b.rss - a.rss).slice(0, count).map(({ rss, label }) => `${rounded(rss)} MB ${label}`);
}

async function run(variant: Record<string, string>) {
  const storage = await throwawayStorage();
  const ports = await freePortBlock(4);
  const system = await launchSystem({
    replicas: 1,
    port: ports,
    adminPort: ports + 1,
    pagesPort: ports + 2,
    calendarPort: ports + 3,
    env: { ...storage.env, LOG_LEVEL: "warn", REDIS_URL: process.env.REDIS_URL, ADMIN_TOKEN: undefined },
    gatewayEnv: { RATE_LIMIT_PER_MINUTE: "100000000", ...variant },
    output: () => {},
    readyTimeoutMs: 90_000,
  });
  try {
    const gatewayUrl = system.gatewayUrls[0]!;
    const { headers, path } = await benchPage({ gatewayUrl, adminUrl: system.adminUrls[0]!, adminToken: system.adminToken, tail: () => "" });
    const url = gatewayUrl + path;
    const pid = system.children.find((child) => child.name === "gateway")!.process.pid!;
    const split = () => `anonymous ${rounded(megabytes(pid, "RssAnon"))}, file ${rounded(megabytes(pid, "RssFile"))}`;
    const atRest = { rss: rounded(megabytes(pid, "VmRSS")), split: split(), mappings: largestMappings(pid) };
    let sampledMax = 0;
    const cpuBefore = cpuSeconds(pid);
    const figures = await load({ url, headers, connections: 50, duration: SECONDS, every: () => void (sampledMax = Math.max(sampledMax, megabytes(pid, "VmRSS"))) });
    const cpuUs = Math.round(((cpuSeconds(pid) - cpuBefore) * 1e6) / figures.requests);
    const metrics = await (await fetch(`${system.adminUrls[0]}/metrics`, { headers: { authorization: `Bearer ${system.adminToken}` } })).text();
    const heap = metrics.split("\n").filter((line) => line.startsWith("process_heap")).map((line) => `${line.split(" ")[0]} ${rounded(Number(line.split(" ")[1]) / 1048576)} MB`);
    return {
      variant,
      rps: figures.rps,
      non2xx: figures.non2xx + figures.errors,
      cpu_us_per_request: cpuUs,
      at_rest_mb: atRest.rss,
      peak_vmhwm_mb: rounded(megabytes(pid, "VmHWM")),
      max_sampled_mb: rounded(sampledMax),
      resident_at_rest: atRest.split,
      resident_after: split(),
      heap_after: heap,
      mappings_at_rest: atRest.mappings,
      mappings_after: largestMappings(pid),
    };
  } finally {
    await system.stop();
    await storage.dispose();
  }
}

for (let round = 0; round < ROUNDS; round++) {
  for (const variant of VARIANTS) console.log(JSON.stringify(await run(variant), null, 1));
}
process.exit(0);
