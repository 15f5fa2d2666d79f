import { describe, expect, test } from "bun:test";
import { jwtVerify, SignJWT } from "jose";
import { signingKeyFrom, signPrincipal, verifyPrincipal } from "./internal-token";
import type { Principal } from "./principal";

const key = signingKeyFrom("k".repeat(43));
const principal: Principal = {
  workspace_id: "0190d6a0-0000-7000-8000-000000000001",
  member_id: "0190d6a0-0000-7000-8000-000000000002",
  key_id: "0190d6a0-0000-7000-8000-000000000003",
  scopes: ["docs:read", "calendar:read"],
  target_team_ids: ["0190d6a0-0000-7000-8000-000000000004"],
  visible_team_ids: ["0190d6a0-0000-7000-8000-000000000004"],
  request_id: "req-1",
};
const request = { method: "GET", path: "/v1/new-page/x" };

describe("the internal principal token", () => {
  test("when the gateway signs a principal, then the services' jose verifier returns it unchanged", async () => {
    expect(await verifyPrincipal(signPrincipal(principal, request, key), request, key)).toEqual(principal);
  });

  test("when the token is presented for another method or path, then it is refused", async () => {
    const token = signPrincipal(principal, request, key);
    await expect(verifyPrincipal(token, { method: "GET", path: "/v1/new-page/y" }, key)).rejects.toThrow();
    await expect(verifyPrincipal(token, { method: "DELETE", path: request.path }, key)).rejects.toThrow();
  });

  test("when the token is signed with another key or tampered with, then it is refused", async () => {
    await expect(verifyPrincipal(signPrincipal(principal, request, signingKeyFrom("z".repeat(43))), request, key)).rejects.toThrow();
    const [header, payload, signature] = signPrincipal(principal, request, key).split(".");
    const widened = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), scopes: ["docs:delete"] })).toString("base64url");
    await expect(verifyPrincipal(`${header}.${widened}.${signature}`, request, key)).rejects.toThrow();
  });

  /** A token as the gateway would sign it, with the time claims chosen by the test (null leaves one out). */
  async function tokenWith(times: { iat: number | null; exp: number | null }, signWith = key) {
    const jwt = new SignJWT({ ...principal, htm: request.method, htu: request.path })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("workspace-gateway")
      .setAudience("workspace-services");
    if (times.iat !== null) jwt.setIssuedAt(times.iat);
    if (times.exp !== null) jwt.setExpirationTime(times.exp);
    return jwt.sign(signWith);
  }
  const now = () => Math.floor(Date.now() / 1000);

  test("when the token has expired, then it is refused", async () => {
    await expect(verifyPrincipal(await tokenWith({ iat: now() - 120, exp: now() - 60 }), request, key)).rejects.toThrow();
  });

  test("when the token has no exp or no iat, then it is refused", async () => {
    await expect(verifyPrincipal(await tokenWith({ iat: now(), exp: null }), request, key)).rejects.toMatchObject({ code: "invalid_token" });
    await expect(verifyPrincipal(await tokenWith({ iat: null, exp: now() + 30 }), request, key)).rejects.toMatchObject({ code: "invalid_token" });
  });

  test("when the token was issued more than 60 s ago, then it is refused even though exp is still ahead", async () => {
    await expect(verifyPrincipal(await tokenWith({ iat: now() - 61, exp: now() + 30 }), request, key)).rejects.toMatchObject({ code: "invalid_token" });
    expect(await verifyPrincipal(await tokenWith({ iat: now() - 50, exp: now() + 10 }), request, key)).toEqual(principal);
  });

  test("when the token was issued with a lifetime over 60 s, then it is refused, even fresh", async () => {
    await expect(verifyPrincipal(await tokenWith({ iat: now(), exp: now() + 61 }), request, key)).rejects.toMatchObject({ code: "invalid_token" });
    await expect(verifyPrincipal(await tokenWith({ iat: now(), exp: now() + 3600 }), request, key)).rejects.toMatchObject({ code: "invalid_token" });
  });

  test("when the token claims to be issued well in the future, then it is refused; a few seconds of clock skew pass", async () => {
    await expect(verifyPrincipal(await tokenWith({ iat: now() + 30, exp: now() + 60 }), request, key)).rejects.toMatchObject({ code: "invalid_token" });
    expect(await verifyPrincipal(await tokenWith({ iat: now() + 2, exp: now() + 62 }), request, key)).toEqual(principal);
  });

  test("when the services also hold the previous key, then tokens of either key pass and tokens of any other key do not", async () => {
    const previous = signingKeyFrom("p".repeat(43));
    const keys = [key, previous];
    expect(await verifyPrincipal(signPrincipal(principal, request, key), request, keys)).toEqual(principal);
    expect(await verifyPrincipal(signPrincipal(principal, request, previous), request, keys)).toEqual(principal);
    await expect(verifyPrincipal(signPrincipal(principal, request, signingKeyFrom("z".repeat(43))), request, keys)).rejects.toMatchObject({ code: "invalid_token" });
    await expect(verifyPrincipal(signPrincipal(principal, request, previous), request, [key])).rejects.toMatchObject({ code: "invalid_token" });
  });

  test("when the gateway signs, then the token is a standard JWS with iat and a 60 s exp", async () => {
    const { payload, protectedHeader } = await jwtVerify(signPrincipal(principal, request, key), key);
    expect(protectedHeader).toEqual({ alg: "HS256", typ: "JWT" });
    expect(payload.exp! - payload.iat!).toBe(60);
    expect(Math.abs(payload.iat! - now())).toBeLessThanOrEqual(1);
  });

  test("when no token is sent, then it is missing_token", async () => {
    await expect(verifyPrincipal(null, request, key)).rejects.toMatchObject({ code: "missing_token" });
  });
});
