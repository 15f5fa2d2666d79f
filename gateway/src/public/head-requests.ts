import { toResponse, withMethod, type Answer, type IncomingRequest } from "@ws/shared";

/**
 * HEAD wherever GET is served (RFC 9110): the request is answered as the GET it
 * stands for, through the same authentication and rate limit (so it counts as
 * a GET does), and sent back with the GET's status and headers but no body.
 */
export function answeringHead<Rest extends unknown[]>(fetch: (request: IncomingRequest, ...rest: Rest) => Promise<Answer>) {
  const asGet = async (request: IncomingRequest, ...rest: Rest): Promise<Response> => {
    const response = toResponse(await fetch(withMethod(request, "GET"), ...rest));
    await response.body?.cancel();
    return new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  // Not an async function itself: every other request goes straight through, with no promise of its own.
  return (request: IncomingRequest, ...rest: Rest): Promise<Answer> => (request.method === "HEAD" ? asGet(request, ...rest) : fetch(request, ...rest));
}
