import { ConfigError, PlainAnswer, REQUEST_ID_HEADER, requestIdOf, type Answer, type IncomingRequest } from "@ws/shared";

/** Which browser origins may call the API: none (the default), every one, or the listed ones. */
export type CorsOrigins = { kind: "none" } | { kind: "any" } | { kind: "list"; origins: Set<string> };

/** Response headers a browser script may read: the limits, the request id, and what conditional and idempotent requests answer. */
export const EXPOSED_HEADERS = [
  "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "X-Request-Id",
  "ETag", "Location", "Idempotency-Replayed", "WWW-Authenticate", "Allow",
];
/** Request headers a browser script may send (Authorization is never covered by a wildcard, so every one is named). */
const ALLOWED_HEADERS = ["Authorization", "X-API-Key", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match", "X-Request-Id"];
const ALLOWED_METHODS = ["GET", "HEAD", "POST", "PUT", "DELETE"];
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * CORS_ALLOWED_ORIGINS: empty (no browser origin), `*`, or a comma list of
 * origins written as browsers send them (`https://app.example.com`,
 * `http://localhost:5173`: scheme, host and port only).
 */
export function parseCorsOrigins(value: string | undefined): CorsOrigins {
  const text = value?.trim() ?? "";
  if (text === "") return { kind: "none" };
  if (text === "*") return { kind: "any" };
  const origins = new Set<string>();
  for (const item of text.split(",").map((part) => part.trim())) {
    let origin: string | undefined;
    try {
      const url = new URL(item);
      if ((url.protocol === "http:" || url.protocol === "https:") && url.origin === item.toLowerCase()) origin = url.origin;
    } catch {
      origin = undefined;
    }
    if (!origin) {
      throw new ConfigError("CORS_ALLOWED_ORIGINS", `must be * or a comma list of origins like https://app.example.com (scheme, host, optional port; no path), got "${item}".`);
    }
    origins.add(origin);
  }
  return { kind: "list", origins };
}

function allows(origins: CorsOrigins, origin: string): boolean {
  return origins.kind === "any" || (origins.kind === "list" && origins.origins.has(origin.toLowerCase()));
}

/** A CORS preflight: OPTIONS asking, with Origin and Access-Control-Request-Method, whether the real request may follow. */
export function isPreflight(request: IncomingRequest): boolean {
  return request.method === "OPTIONS" && request.headers.has("origin") && request.headers.has("access-control-request-method");
}

/**
 * CORS for the public port. A preflight is answered here, before routing and
 * authentication, so it needs no key and counts against none: 204 with its
 * X-Request-Id, and the Access-Control-Allow-* headers only when the origin is
 * allowed (a browser then refuses the real request). Every other answer to an allowed origin says so
 * and exposes the headers a script needs. `Vary: Origin` always, since the
 * answer depends on it.
 */
export function withCors<Rest extends unknown[]>(origins: CorsOrigins, fetch: (request: IncomingRequest, ...rest: Rest) => Promise<Answer>) {
  const preflight = (request: IncomingRequest, origin: string | null): Response => {
    // Like every answer of the API, a preflight's carries its request id.
    const headers = new Headers({ vary: "Origin", [REQUEST_ID_HEADER]: requestIdOf(request) });
    if (origin && allows(origins, origin)) {
      headers.set("access-control-allow-origin", origins.kind === "any" ? "*" : origin);
      headers.set("access-control-allow-methods", ALLOWED_METHODS.join(", "));
      headers.set("access-control-allow-headers", ALLOWED_HEADERS.join(", "));
      headers.set("access-control-max-age", String(PREFLIGHT_MAX_AGE_SECONDS));
    }
    return new Response(null, { status: 204, headers });
  };
  const decorated = async (request: IncomingRequest, origin: string | null, rest: Rest): Promise<Answer> => {
    const answer = await fetch(request, ...rest);
    // A plain answer stays one: its body goes out as it is, with no Response (and no copy of it) made.
    const headers = answer instanceof PlainAnswer ? answer.headers : new Headers(answer.headers);
    if (headers instanceof Headers) headers.append("vary", "Origin");
    else headers.fields.push(["vary", "Origin"]);
    if (origin && allows(origins, origin)) {
      headers.set("access-control-allow-origin", origins.kind === "any" ? "*" : origin);
      headers.set("access-control-expose-headers", EXPOSED_HEADERS.join(", "));
    }
    if (answer instanceof PlainAnswer) return answer;
    return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: headers as Headers });
  };
  // Not an async function itself: with no origin allowed, an API request goes straight through.
  return (request: IncomingRequest, ...rest: Rest): Promise<Answer> => {
    if (isPreflight(request)) return Promise.resolve(preflight(request, request.headers.get("origin")));
    if (origins.kind === "none") return fetch(request, ...rest);
    return decorated(request, request.headers.get("origin"), rest);
  };
}
