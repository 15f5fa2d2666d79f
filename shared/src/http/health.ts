import { Elysia } from "elysia";
import { ApiError } from "../errors/api-error";

export type ReadinessCheck = () => Promise<unknown>;

const CHECK_TIMEOUT_MS = 2000;

async function run(check: ReadinessCheck): Promise<"ok" | string> {
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timed out")), CHECK_TIMEOUT_MS)),
    ]);
    return "ok";
  } catch (error) {
    return error instanceof Error ? error.message : "failed";
  }
}

/** The probes' paths, each answered to GET (and HEAD). */
export const HEALTH_PATHS = ["/healthz", "/readyz"] as const;

/**
 * /healthz: the process is alive. /readyz: it can serve — its datastores and
 * upstreams answer, and it is not draining for shutdown.
 */
export function healthRoutes(options: { checks: Record<string, ReadinessCheck>; isDraining: () => boolean; onReadiness?: (ready: boolean) => void }) {
  return new Elysia()
    .get("/healthz", () => ({ status: "ok" }))
    .get("/readyz", async () => {
      if (options.isDraining()) {
        options.onReadiness?.(false);
        throw new ApiError("service_unavailable", "Shutting down.", { details: { draining: true } });
      }
      const names = Object.keys(options.checks);
      const results = await Promise.all(names.map((name) => run(options.checks[name]!)));
      const checks = Object.fromEntries(names.map((name, i) => [name, results[i]]));
      const ready = results.every((result) => result === "ok");
      options.onReadiness?.(ready);
      if (!ready) throw new ApiError("service_unavailable", "Not ready: a dependency is unavailable.", { details: { checks } });
      return { status: "ready", checks };
    });
}
