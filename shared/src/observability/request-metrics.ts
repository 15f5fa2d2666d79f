import { Elysia } from "elysia";
import { toApiError, type ErrorHandlerOptions } from "../http/error-handler";
import { httpMetrics, type HttpMetrics } from "./metrics";

/**
 * Counts every request an Elysia app answers by route template (never the raw
 * path, which would grow the series without bound) and serves `GET /metrics`.
 * Use it before the error handler so that it sees the status an error becomes.
 */
export function requestMetrics(options: Pick<ErrorHandlerOptions, "validationCode"> & { metrics?: HttpMetrics }) {
  const metrics = options.metrics ?? httpMetrics();
  const started = new WeakMap<Request, number>();
  const errorStatus = new WeakMap<Request, number>();
  return new Elysia({ name: "request-metrics", seed: options.validationCode })
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onError({ as: "global" }, ({ code, error, request }) => {
      errorStatus.set(request, toApiError(code, error, options, request.method).status);
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set }) => {
      const start = started.get(request);
      if (start === undefined) return;
      const status = errorStatus.get(request) ?? (typeof set.status === "number" ? set.status : 200);
      // A trailing slash is optional on every path: one series per route either way.
      const template = route ? (route.length > 1 && route.endsWith("/") ? route.slice(0, -1) : route) : "unmatched";
      metrics.record({ route: template, method: request.method, status, seconds: (performance.now() - start) / 1000 });
    })
    .get("/metrics", () => metrics.registry.response());
}
