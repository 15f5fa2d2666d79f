/**
 * `bun bench/memory-abuse.ts`: one key sends 48 concurrent 10 MiB PUTs while
 * another key goes on with ordinary requests. Measures the peak resident memory
 * of the gateway and of each service, checks that every abusive request got a
 * JSON answer and that no process died, and prints the ordinary key's latency.
 * Also section 7 of `npm run bench` (`BENCH_SECTIONS=memory-abuse npm run bench`
 * runs it alone there).
 */
import { launchSystem, type RunningSystem } from "../scripts/system/launch-system";
import { testStorage, type TestStorage } from "../tests/harness/database";
import { isErrorObject } from "../tests/harness/http";
import { freePortBlock } from "../tests/harness/ports";
import { seedTenant } from "../tests/harness/tenant";
import { percentile } from "./load";
import { memorySampler, type MemoryPeak } from "./machine";

const MiB = 1024 * 1024;
export const ABUSIVE_REQUESTS = Number(process.env.BENCH_ABUSE_REQUESTS ?? 48);
const BODY_BYTES = 10 * MiB;
const ROUNDS = Number(process.env.BENCH_ABUSE_ROUNDS ?? 3);
export const RSS_TARGET_MB = 256;

export interface MemoryAbuseFigures {
  requests_per_round: number;
  rounds: number;
  body_bytes: number;
  /** Status → count over every abusive request. */
  statuses: Record<string, number>;
  /** Abusive requests answered with neither the error object nor a page. */
  not_json: number;
  /** Abusive requests that got no answer at all (connection reset, timeout). */
  no_answer: number;
  crashed: string[];
  memory_mb: Record<string, MemoryPeak>;
  ordinary: { requests: number; ok: number; p50_ms: number; p99_ms: number; max_ms: number; statuses: Record<string, number> };
  seconds: number;
}

const round1 = (value: number) => Math.round(value * 10) / 10;
const tally = (values: (number | string)[]) => values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {});

/** A PUT body of exactly `bytes` bytes: a JSON object whose content fills it. */
function bigBody(bytes: number): string {
  const frame = '{"content":""}';
  return `{"content":"${"x".repeat(bytes - frame.length)}"}`;
}

async function abusiveRequest(url: string, key: string, body: string): Promise<{ status: number | "none"; json: boolean }> {
  try {
    const response = await fetch(url, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body,
      signal: AbortSignal.timeout(120_000),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const json = response.status < 400 ? typeof (parsed as { id?: unknown })?.id === "string" : isErrorObject(parsed);
    return { status: response.status, json };
  } catch {
    return { status: "none", json: false };
  }
}

/** Runs against a system that is already up; `log` reports progress. */
export async function measureMemoryAbuse(system: RunningSystem, log: (line: string) => void = () => {}): Promise<MemoryAbuseFigures> {
  const started = performance.now();
  const gateway = system.gatewayUrls[0]!;
  const seed = () => seedTenant({ adminUrl: system.adminUrls[0]!, adminToken: system.adminToken });
  // Two workspaces: the ordinary key's lists must not contain the abuser's 10 MiB page.
  const abuser = await (await seed()).key({ rate_limit_per_minute: 1_000_000 });
  const ordinary = await (await seed()).key({ rate_limit_per_minute: 1_000_000 });
  const create = async (key: string) => {
    const response = await fetch(`${gateway}/v1/new-page`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "memory abuse", content: "small" }),
    });
    if (response.status !== 201) throw new Error(`creating a page answered ${response.status}: ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  };
  const target = await create(abuser);
  const readable = await create(ordinary);

  const processes = system.children.filter((child) => ["gateway", "gateway-0", "pages", "calendar"].includes(child.name));
  const memory = memorySampler(processes.map((child) => ({ name: child.name.replace(/-0$/, ""), pid: child.process.pid! })));
  const sampling = setInterval(() => memory.sample(), 50);

  let abusing = true;
  const latencies: number[] = [];
  const ordinaryStatuses: number[] = [];
  // Four callers in a row each: ordinary traffic, not a second flood.
  const ordinaryTraffic = Promise.all(
    Array.from({ length: 4 }, async (_, caller) => {
      const paths = [`/v1/new-page/${readable}`, "/v1/new-page?per_page=5", "/api/calendar/calendars"];
      for (let i = 0; abusing; i++) {
        const begun = performance.now();
        const response = await fetch(gateway + paths[(i + caller) % paths.length], { headers: { authorization: `Bearer ${ordinary}` } }).catch(() => null);
        await response?.arrayBuffer().catch(() => {});
        const took = performance.now() - begun;
        latencies.push(took);
        ordinaryStatuses.push(response?.status ?? 0);
        if (took > 1000) console.log(`slow ordinary request: ${paths[(i + caller) % paths.length]} ${response?.status} ${Math.round(took)} ms, ended ${new Date().toISOString()}`);
      }
    }),
  );

  const body = bigBody(BODY_BYTES);
  const outcomes: { status: number | "none"; json: boolean }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const results = await Promise.all(Array.from({ length: ABUSIVE_REQUESTS }, () => abusiveRequest(`${gateway}/v1/new-page/${target}`, abuser, body)));
    outcomes.push(...results);
    log(`memory abuse round ${round}: ${JSON.stringify(tally(results.map((result) => result.status)))}`);
  }
  abusing = false;
  await ordinaryTraffic;
  clearInterval(sampling);

  const crashed = system.children.filter((child) => child.process.exitCode !== null || child.process.signalCode !== null).map((child) => child.name);
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    requests_per_round: ABUSIVE_REQUESTS,
    rounds: ROUNDS,
    body_bytes: BODY_BYTES,
    statuses: tally(outcomes.map((outcome) => outcome.status)),
    not_json: outcomes.filter((outcome) => outcome.status !== "none" && !outcome.json).length,
    no_answer: outcomes.filter((outcome) => outcome.status === "none").length,
    crashed,
    memory_mb: memory.peaks(),
    ordinary: {
      requests: latencies.length,
      ok: ordinaryStatuses.filter((status) => status === 200).length,
      p50_ms: round1(percentile(sorted, 50)),
      p99_ms: round1(percentile(sorted, 99)),
      max_ms: round1(sorted.at(-1) ?? 0),
      statuses: tally(ordinaryStatuses),
    },
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}

/** The printed table (bench/README.md shows the same). */
export function memoryAbuseReport(f: MemoryAbuseFigures): string {
  const mark = (met: boolean) => (met ? "met" : "NOT met");
  const lines = [
    `| 7. Memory under abuse: ${f.rounds} rounds of ${f.requests_per_round} concurrent ${f.body_bytes / MiB} MiB PUTs from one key | idle VmRSS MB | peak VmHWM MB | max sampled VmRSS MB |`,
    "|---|---:|---:|---:|",
  ];
  for (const [name, peak] of Object.entries(f.memory_mb)) {
    lines.push(`| ${name} (target < ${RSS_TARGET_MB}: ${mark(peak.hwm_mb < RSS_TARGET_MB)}) | ${peak.idle_rss_mb} | ${peak.hwm_mb} | ${peak.sampled_rss_mb} |`);
  }
  lines.push("");
  lines.push("| abusive requests | value |");
  lines.push("|---|---:|");
  lines.push(`| answers by status | ${Object.entries(f.statuses).map(([status, count]) => `${status}: ${count}`).join(", ")} |`);
  lines.push(`| not the error object nor a page / no answer (target 0 / 0: ${mark(f.not_json === 0 && f.no_answer === 0)}) | ${f.not_json} / ${f.no_answer} |`);
  lines.push(`| processes that died (target none: ${mark(f.crashed.length === 0)}) | ${f.crashed.join(", ") || "none"} |`);
  lines.push(
    `| another key's ordinary requests meanwhile: ${f.ordinary.requests} (${f.ordinary.ok} × 200; ${Object.entries(f.ordinary.statuses).map(([status, count]) => `${status}: ${count}`).join(", ")}) | p50 ${f.ordinary.p50_ms} ms, **p99 ${f.ordinary.p99_ms} ms**, max ${f.ordinary.max_ms} ms |`,
  );
  return lines.join("\n");
}

/** Starts its own system (real Postgres and Redis when DATABASE_URL/REDIS_URL are set, else embedded) and measures. */
export async function memoryAbuseSection(storage: TestStorage, log: (line: string) => void = console.log): Promise<MemoryAbuseFigures> {
  const ports = await freePortBlock(4);
  const system = await launchSystem({
    port: ports,
    adminPort: ports + 1,
    pagesPort: ports + 2,
    calendarPort: ports + 3,
    env: { ...storage.env, LOG_LEVEL: "warn", REDIS_URL: process.env.REDIS_URL, ADMIN_TOKEN: undefined },
    output: (name, line) => {
      if (/"level":"(error|fatal)"/i.test(line)) log(`[${name}] ${line}`);
    },
    readyTimeoutMs: 90_000,
  });
  try {
    log(`memory abuse: ${ROUNDS} × ${ABUSIVE_REQUESTS} concurrent ${BODY_BYTES / MiB} MiB PUTs from one key`);
    return await measureMemoryAbuse(system, log);
  } finally {
    await system.stop();
  }
}

if (import.meta.main) {
  const storage = await testStorage();
  try {
    const figures = await memoryAbuseSection(storage);
    console.log(`\n${memoryAbuseReport(figures)}`);
  } finally {
    await storage.dispose();
  }
  process.exit(0);
}
