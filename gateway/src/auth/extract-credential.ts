import { ApiError, type FieldReader } from "@ws/shared";

/** Every 401 tells the client how to authenticate (RFC 6750). */
export const WWW_AUTHENTICATE = 'Bearer realm="workspace-api"';

export function unauthorized(code: "missing_token" | "invalid_token", message: string): ApiError {
  const challenge = code === "invalid_token" ? `${WWW_AUTHENTICATE}, error="invalid_token"` : WWW_AUTHENTICATE;
  return new ApiError(code, message, { headers: { "www-authenticate": challenge } });
}

const BEARER = /^bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * `Authorization: Bearer <key>` (scheme in any case) or
 * `X-API-Key: <key>`; Authorization wins when both are sent.
 */
export function extractKey(headers: FieldReader): string {
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    const match = BEARER.exec(authorization);
    if (!match) throw unauthorized("invalid_token", "The Authorization header must be a Bearer credential: Authorization: Bearer <API key>.");
    return match[1]!;
  }
  const apiKey = headers.get("x-api-key");
  if (apiKey !== null) {
    if (apiKey.trim() === "") throw unauthorized("invalid_token", "The X-API-Key header is empty.");
    return apiKey.trim();
  }
  throw unauthorized("missing_token", "Send an API key: Authorization: Bearer <API key>, or X-API-Key: <API key>.");
}
