import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface OpenLoopPlan {
  url: string;
  headers: Record<string, string>;
  /** Requests per second, sent at a constant rate. */
  rate: number;
  seconds: number;
}

export interface OpenLoopFigures {
  rate: number;
  seconds: number;
  requests: number;
  achieved_rps: number;
  /** Latency from each request's due time to the end of its response body. */
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  p999_ms: number;
  max_ms: number;
  non2xx: number;
  /** Failed, or unanswered 12 s after the last was due. */
  errors: number;
  /** How late the generator itself sent: large values mean the generator, not the server, fell behind. */
  send_lag_p99_ms: number;
  send_lag_max_ms: number;
  generator_cpu_us_per_request: number;
}

const GENERATOR = fileURLToPath(new URL("./generator.ts", import.meta.url));
const BUN = fileURLToPath(new URL("../../node_modules/.bin/bun", import.meta.url));

/**
 * Runs the open-loop generator in a process of its own (so its timers are not
 * delayed by the bench's own work); `pid` is there for CPU accounting.
 */
export function openLoop(plan: OpenLoopPlan): { pid: number; figures: Promise<OpenLoopFigures> } {
  const child = spawn(BUN, [GENERATOR, JSON.stringify(plan)], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const figures = new Promise<OpenLoopFigures>((resolve, reject) => {
    child.on("exit", (code) => {
      const last = stdout.trim().split("\n").at(-1);
      if (code !== 0 || !last) return reject(new Error(`open-loop generator exited ${code}: ${stderr.slice(-2000)}`));
      resolve(JSON.parse(last) as OpenLoopFigures);
    });
  });
  return { pid: child.pid!, figures };
}
