/**
 * The path a request names, without its query: sliced from the URL the server
 * built, without parsing it again (`new URL` on every request costs more than
 * everything else the front does). The gateway forwards the path it parsed
 * itself, so for any request it sent this is the pathname it signed; a path
 * that a URL parser would still rewrite (dot segments, say) is taken as sent,
 * and so matches no token.
 */
export function requestPath(request: { readonly url: string }): string {
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  const fragment = url.indexOf("#", start);
  const end = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}

/**
 * Elysia finds a request's path by looking for the first "/" from the URL's
 * twelfth character on, which holds for any authority of four characters or
 * more ("http://a.bc/"). The URL is built from the client's Host, and a client
 * may send a shorter one ("a"): such a request is handed to Elysia with
 * "localhost" for its authority, so that its path is still the one it named.
 */
export function routableByElysia(request: Request): Request {
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1 || start >= 11) return request;
  return new Request(`http://localhost${url.slice(start)}`, request);
}
