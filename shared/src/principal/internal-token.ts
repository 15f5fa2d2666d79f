import { createHmac, timingSafeEqual } from "node:crypto";
import { ApiError } from "../errors/api-error";
import type { Principal } from "./principal";

/** The header that carries the signed principal from the gateway to a service. */
export const PRINCIPAL_HEADER = "x-workspace-principal";

const ISSUER = "workspace-gateway";
const AUDIENCE = "workspace-services";
/**
 * Long enough for a slow upstream hop, short enough that a leaked token is
 * useless soon. The services refuse a token issued longer ago than this, or
 * issued with a longer lifetime, whatever its `exp` says.
 */
export const PRINCIPAL_MAX_AGE_SECONDS = 60;
/** How far ahead of a service's clock the gateway's may run before `iat` counts as "in the future". */
const CLOCK_SKEW_SECONDS = 5;

export type SigningKey = Uint8Array;
/**
 * The keys a service accepts, in the order tried: the current
 * INTERNAL_SIGNING_KEY first, then INTERNAL_SIGNING_KEY_PREVIOUS while a
 * rotation is under way.
 */
export type VerificationKeys = readonly SigningKey[];

export function signingKeyFrom(secret: string): SigningKey {
  return new TextEncoder().encode(secret);
}

const PROTECTED_HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

function signClaims(claims: Record<string, unknown>, audience: string, key: SigningKey): string {
  const now = Math.floor(Date.now() / 1000);
  const payload = { ...claims, iss: ISSUER, aud: audience, iat: now, exp: now + PRINCIPAL_MAX_AGE_SECONDS };
  const input = `${PROTECTED_HEADER}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}`;
  return `${input}.${createHmac("sha256", key).update(input).digest("base64url")}`;
}

/**
 * Signs the principal for one request as a compact HS256 JWT, bound to the
 * method and path it was issued for so it cannot be replayed against another
 * operation. Signed with node:crypto's synchronous HMAC because it runs on every
 * request (about 3 µs, against 30 to 65 µs for jose's WebCrypto path); the
 * services verify it the same way (verifiedClaims), and it stays a standard JWS
 * that any JOSE library verifies.
 */
export function signPrincipal(principal: Principal, request: { method: string; path: string }, key: SigningKey): string {
  return signClaims({ ...principal, htm: request.method, htu: request.path }, AUDIENCE, key);
}

type Claims = Record<string, unknown>;

const BASE64URL = /^[\w-]*$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });
const utf8Bytes = new TextEncoder();

/** A segment of the compact form as JSON: base64url without padding, UTF-8, an object. */
function objectOf(segment: string): Claims {
  if (segment.length % 4 === 1 || !BASE64URL.test(segment)) throw new Error("not base64url");
  const value: unknown = JSON.parse(utf8.decode(Buffer.from(segment, "base64url")));
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("not a JSON object");
  return value as Claims;
}

/**
 * Only HS256, and no `crit`: an extension this verifier would have to
 * understand is refused rather than ignored. The gateway's own header, the
 * same on every token, needs no parsing.
 */
function assertHs256(header: string): void {
  if (header === PROTECTED_HEADER) return;
  const parsed = objectOf(header);
  if (parsed.alg !== "HS256" || Object.hasOwn(parsed, "crit")) throw new Error("unsupported protected header");
}

/**
 * The signature is compared in its base64url text, in constant time: only the
 * one canonical encoding of the right MAC passes, so no other spelling of a
 * signature (padding, stray bits) is ever accepted.
 */
function signedWithOneOf(signingInput: string, signature: string, keys: VerificationKeys): boolean {
  const given = utf8Bytes.encode(signature);
  for (const key of keys) {
    const expected = utf8Bytes.encode(createHmac("sha256", key).update(signingInput).digest("base64url"));
    if (expected.length === given.length && timingSafeEqual(expected, given)) return true;
  }
  return false;
}

/** `exp` alone is not enough: a token minted with a long lifetime, or long ago, is refused too. */
function assertFresh(iat: number, exp: number, now: number): void {
  if (exp - iat > PRINCIPAL_MAX_AGE_SECONDS) throw new Error("lifetime too long");
  if (now - iat > PRINCIPAL_MAX_AGE_SECONDS) throw new Error("issued too long ago");
  if (iat > now + CLOCK_SKEW_SECONDS) throw new Error("issued in the future");
}

/** The registered claims as jose's jwtVerify reads them (issuer, audience, required iat and exp, nbf and exp against now). */
function assertCurrent(claims: Claims, audience: string, now: number): void {
  const { iss, aud, iat, exp, nbf } = claims;
  if (iss !== ISSUER) throw new Error("another issuer");
  if (aud !== audience && !(Array.isArray(aud) && aud.includes(audience))) throw new Error("another audience");
  if (typeof iat !== "number" || typeof exp !== "number") throw new Error("iat and exp must be numbers");
  if (nbf !== undefined && (typeof nbf !== "number" || nbf > now)) throw new Error("not yet valid");
  if (exp <= now) throw new Error("expired");
  assertFresh(iat, exp, now);
}

/**
 * The claims of a compact HS256 JWS signed with one of the keys, checked
 * synchronously with node:crypto: this runs on every request, and jose's
 * WebCrypto path cost about 30 µs of CPU (an async verify and a key import per
 * call) where this costs about 3.
 */
function verifiedClaims(token: string, keys: VerificationKeys, audience: string): Claims {
  const parts = token.split(".");
  if (parts.length !== 3) throw new Error("not a compact JWS");
  const [header, payload, signature] = parts as [string, string, string];
  assertHs256(header);
  if (!signedWithOneOf(token.slice(0, header.length + 1 + payload.length), signature, keys)) throw new Error("bad signature");
  const claims = objectOf(payload);
  assertCurrent(claims, audience, Math.floor(Date.now() / 1000));
  return claims;
}

/** The principal the gateway signed for exactly this request; throws missing_token or invalid_token. */
export function verifiedPrincipal(token: string | null, request: { method: string; path: string }, keys: VerificationKeys): Principal {
  if (!token) throw new ApiError("missing_token", "This service is reached only through the gateway.");
  let claims: Claims;
  try {
    claims = verifiedClaims(token, keys, AUDIENCE);
    if (claims.htm !== request.method || claims.htu !== request.path) throw new Error("token issued for another request");
  } catch {
    throw new ApiError("invalid_token", "The internal principal is not valid.");
  }
  const { workspace_id, member_id, key_id, scopes, target_team_ids, visible_team_ids, request_id, answer_given_up_ms_ago } = claims as unknown as Principal;
  const principal: Principal = { workspace_id, member_id, key_id, scopes, target_team_ids, visible_team_ids, request_id };
  if (typeof answer_given_up_ms_ago === "number" && answer_given_up_ms_ago >= 0) principal.answer_given_up_ms_ago = answer_given_up_ms_ago;
  return principal;
}

/** verifiedPrincipal, as a promise. */
export async function verifyPrincipal(token: string | null, request: { method: string; path: string }, keys: SigningKey | VerificationKeys): Promise<Principal> {
  return verifiedPrincipal(token, request, keys instanceof Uint8Array ? [keys] : keys);
}

/** The header that carries the gateway's order to delete a workspace's data. */
export const WORKSPACE_PURGE_HEADER = "x-workspace-purge";

/**
 * A purge order is a token of its own audience, so no principal (what a key may
 * do) can ever be taken for one, nor the other way round; it names the
 * workspace and is bound to the request it was issued for.
 */
const PURGE_AUDIENCE = "workspace-services/purge";

export function signWorkspacePurge(workspaceId: string, request: { method: string; path: string; requestId: string }, key: SigningKey): string {
  return signClaims({ purge_workspace_id: workspaceId, request_id: request.requestId, htm: request.method, htu: request.path }, PURGE_AUDIENCE, key);
}

export function verifyWorkspacePurge(token: string | null, request: { method: string; path: string; workspaceId: string }, keys: VerificationKeys): void {
  if (!token) throw new ApiError("missing_token", "This service is reached only through the gateway.");
  try {
    const claims = verifiedClaims(token, keys, PURGE_AUDIENCE);
    if (claims.htm !== request.method || claims.htu !== request.path || claims.purge_workspace_id !== request.workspaceId) {
      throw new Error("token issued for another request");
    }
  } catch {
    throw new ApiError("invalid_token", "The purge order is not valid.");
  }
}
