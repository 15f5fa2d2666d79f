import { Elysia } from "elysia";
import { requestPath } from "../http/request-path";
import { pathPattern } from "../operations/route-table";
import type { HttpMetrics } from "./metrics";

type FetchHandler = (request: Request) => Response | Promise<Response>;

/**
 * The label a request is counted under: the first of `templates` its path
 * matches (`/v1/new-page/:id`), or `unmatched`. Never the raw path, which
 * would grow the series without bound.
 */
export function routeLabels(templates: readonly string[]): (path: string) => string {
  const patterns = [...new Set(templates)].map((template) => ({ template, pattern: pathPattern(template) }));
  return (path) => patterns.find(({ pattern }) => pattern.test(path))?.template ?? "unmatched";
}

/**
 * Counts every request a fetch handler answers by route, method and the
 * status it answered, and times it from arrival to answer (a wait for a
 * database connection included). A handler that throws counts as a 500, which
 * is what the runtime answers. Recorded around the handler rather than by the
 * framework's hooks, which cost a few µs a request.
 */
export function countRequests(handler: FetchHandler, metrics: HttpMetrics, routeOf: (path: string) => string): FetchHandler {
  return (request) => {
    const started = performance.now();
    const record = (status: number) =>
      metrics.record({ route: routeOf(requestPath(request)), method: request.method, status, seconds: (performance.now() - started) / 1000 });
    let answer: Response | Promise<Response>;
    try {
      answer = handler(request);
    } catch (error) {
      record(500);
      throw error;
    }
    if (answer instanceof Response) {
      record(answer.status);
      return answer;
    }
    return answer.then(
      (response) => {
        record(response.status);
        return response;
      },
      (error: unknown) => {
        record(500);
        throw error;
      },
    );
  };
}

/** `GET /metrics`: the registry in Prometheus's text format. */
export function metricsRoute(metrics: HttpMetrics) {
  return new Elysia({ name: "metrics-route" }).get("/metrics", () => metrics.registry.response());
}
