import type { IncomingRequest } from "../runtime/incoming-request";

export const REQUEST_ID_HEADER = "x-request-id";

const ids = new WeakMap<IncomingRequest, string>();
const ACCEPTABLE_ID = /^[\w.:-]{1,128}$/;

/** The caller's X-Request-Id when it is sane, otherwise a new one; stable per request. */
export function requestIdOf(request: IncomingRequest): string {
  let id = ids.get(request);
  if (!id) {
    const given = request.headers.get(REQUEST_ID_HEADER);
    id = given && ACCEPTABLE_ID.test(given) ? given : crypto.randomUUID();
    ids.set(request, id);
  }
  return id;
}
