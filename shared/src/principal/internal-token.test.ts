import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";
import { signingKeyFrom, signPrincipal, signWorkspacePurge, verifiedPrincipal, verifyPrincipal, verifyWorkspacePurge } from "./internal-token";
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

  test("when the gateway tells of an answer given up, then the services read how long ago; any other value is not read", async () => {
    const told = await verifyPrincipal(signPrincipal({ ...principal, answer_given_up_ms_ago: 1200 }, request, key), request, key);
    expect(told.answer_given_up_ms_ago).toBe(1200);
    for (const other of [-1, "1200", null]) {
      const read = await verifyPrincipal(signPrincipal({ ...principal, answer_given_up_ms_ago: other as number }, request, key), request, key);
      expect(Object.hasOwn(read, "answer_given_up_ms_ago")).toBe(false);
    }
    expect(Object.hasOwn(await verifyPrincipal(signPrincipal(principal, request, key), request, key), "answer_given_up_ms_ago")).toBe(false);
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

describe("the internal principal token, as the services read its compact form", () => {
  const base64url = (text: string) => Buffer.from(text).toString("base64url");
  const claims = () => ({ ...principal, htm: request.method, htu: request.path, iss: "workspace-gateway", aud: "workspace-services", iat: now(), exp: now() + 60 });
  const now = () => Math.floor(Date.now() / 1000);
  /** Segments as given, signed correctly with HS256 over them, whatever they hold. */
  const signedSegments = (header: string, payload: string, signWith = key) =>
    `${header}.${payload}.${createHmac("sha256", signWith).update(`${header}.${payload}`).digest("base64url")}`;
  const signedJson = (header: object, payload: unknown) => signedSegments(base64url(JSON.stringify(header)), base64url(JSON.stringify(payload)));
  const refused = (token: string) => expect(() => verifiedPrincipal(token, request, [key])).toThrow(expect.objectContaining({ code: "invalid_token" }));

  test("when the compact form is signed by hand with the same claims, then it is accepted", () => {
    expect(verifiedPrincipal(signedJson({ alg: "HS256" }, claims()), request, [key])).toEqual(principal);
  });

  test("when the header says alg none, with or without a signature, then it is refused", () => {
    const header = base64url(JSON.stringify({ alg: "none" }));
    const payload = base64url(JSON.stringify(claims()));
    refused(`${header}.${payload}.`);
    refused(signedSegments(header, payload));
  });

  test("when the header names another algorithm, or none at all, then it is refused even with a valid HS256 MAC", () => {
    refused(signedJson({ alg: "HS512" }, claims()));
    refused(signedJson({ alg: "hs256" }, claims()));
    refused(signedJson({ typ: "JWT" }, claims()));
  });

  test("when the header carries crit, then it is refused", () => {
    refused(signedJson({ alg: "HS256", crit: ["b64"], b64: true }, claims()));
    refused(signedJson({ alg: "HS256", crit: ["exp"] }, claims()));
  });

  test("when the token has 2 or 4 segments, then it is refused", () => {
    const token = signPrincipal(principal, request, key);
    const [header, payload, signature] = token.split(".");
    refused(`${header}.${payload}`);
    refused(`${token}.${signature}`);
    refused(`${header}.${payload}.${signature}.`);
  });

  test("when a segment is not base64url, then it is refused, even under a valid MAC", () => {
    const payload = base64url(JSON.stringify(claims()));
    refused(signedSegments(base64url(JSON.stringify({ alg: "HS256" })), `${payload}!`));
    refused(signedSegments(base64url(JSON.stringify({ alg: "HS256" })), Buffer.from(JSON.stringify(claims())).toString("base64")));
    refused(signedSegments(`${base64url(JSON.stringify({ alg: "HS256" }))}=`, payload));
    const oneCharacterOver = payload + "A".repeat((5 - (payload.length % 4)) % 4 || 4);
    refused(signedSegments(base64url(JSON.stringify({ alg: "HS256" })), oneCharacterOver));
  });

  test("when the signature is padded, truncated, lengthened or spelled with other characters, then it is refused", () => {
    const token = signPrincipal(principal, request, key);
    const [header, payload, signature] = token.split(".") as [string, string, string];
    refused(`${header}.${payload}.${signature}=`);
    refused(`${header}.${payload}.${signature.slice(0, -1)}`);
    refused(`${header}.${payload}.${signature}AA`);
    refused(`${header}.${payload}.${Buffer.from(signature, "base64url").toString("base64")}`);
    refused(`${header}.${payload}.`);
  });

  test("when the payload is not JSON, or JSON but not an object, then it is refused", () => {
    const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
    refused(signedSegments(header, base64url("not json")));
    refused(signedSegments(header, base64url(JSON.stringify([claims()]))));
    refused(signedSegments(header, base64url("null")));
    refused(signedSegments(header, base64url('"a string"')));
    refused(signedSegments(header, Buffer.from([0xff, 0xfe, 0x7b, 0x7d]).toString("base64url")));
  });

  test("when the header is not JSON or not an object, then it is refused", () => {
    const payload = base64url(JSON.stringify(claims()));
    refused(signedSegments(base64url("HS256"), payload));
    refused(signedSegments(base64url(JSON.stringify(["HS256"])), payload));
  });

  test("when aud is an array, then it passes if it holds the services' audience and is refused otherwise", () => {
    expect(verifiedPrincipal(signedJson({ alg: "HS256" }, { ...claims(), aud: ["elsewhere", "workspace-services"] }), request, [key])).toEqual(principal);
    refused(signedJson({ alg: "HS256" }, { ...claims(), aud: ["elsewhere"] }));
    refused(signedJson({ alg: "HS256" }, { ...claims(), aud: "workspace-services/purge" }));
    refused(signedJson({ alg: "HS256" }, { ...claims(), aud: undefined }));
  });

  test("when iss is missing or another, then it is refused", () => {
    refused(signedJson({ alg: "HS256" }, { ...claims(), iss: undefined }));
    refused(signedJson({ alg: "HS256" }, { ...claims(), iss: "someone-else" }));
  });

  test("when exp or iat is a string, then it is refused", () => {
    refused(signedJson({ alg: "HS256" }, { ...claims(), exp: String(now() + 60) }));
    refused(signedJson({ alg: "HS256" }, { ...claims(), iat: String(now()) }));
  });

  test("when exp is now, then it has expired; when nbf is ahead, then it is not valid yet", () => {
    refused(signedJson({ alg: "HS256" }, { ...claims(), iat: now() - 30, exp: now() }));
    refused(signedJson({ alg: "HS256" }, { ...claims(), nbf: now() + 10 }));
    refused(signedJson({ alg: "HS256" }, { ...claims(), nbf: "0" }));
    expect(verifiedPrincipal(signedJson({ alg: "HS256" }, { ...claims(), nbf: now() }), request, [key])).toEqual(principal);
  });

  test("when the key list is empty, then every token is refused", () => {
    expect(() => verifiedPrincipal(signPrincipal(principal, request, key), request, [])).toThrow(expect.objectContaining({ code: "invalid_token" }));
  });

  test("when the same claims come back through jose, then jose and the services agree", async () => {
    const token = signedJson({ alg: "HS256" }, { ...claims(), aud: ["workspace-services"] });
    await jwtVerify(token, key, { issuer: "workspace-gateway", audience: "workspace-services", algorithms: ["HS256"], requiredClaims: ["iat", "exp"] });
    expect(verifiedPrincipal(token, request, [key])).toEqual(principal);
  });
});

describe("the workspace purge order", () => {
  const purge = { method: "DELETE", path: "/internal/workspaces/w1", workspaceId: "w1" };

  test("when the gateway signs a purge order, then it passes for exactly that workspace and path", () => {
    const token = signWorkspacePurge("w1", { ...purge, requestId: "req-1" }, key);
    expect(() => verifyWorkspacePurge(token, purge, [key])).not.toThrow();
    expect(() => verifyWorkspacePurge(token, { ...purge, workspaceId: "w2" }, [key])).toThrow(expect.objectContaining({ code: "invalid_token" }));
    expect(() => verifyWorkspacePurge(token, { ...purge, path: "/internal/workspaces/w2" }, [key])).toThrow(expect.objectContaining({ code: "invalid_token" }));
  });

  test("when a principal is presented as a purge order, or a purge order as a principal, then it is refused", () => {
    expect(() => verifyWorkspacePurge(signPrincipal(principal, purge, key), purge, [key])).toThrow(expect.objectContaining({ code: "invalid_token" }));
    const order = signWorkspacePurge("w1", { ...purge, requestId: "req-1" }, key);
    expect(() => verifiedPrincipal(order, purge, [key])).toThrow(expect.objectContaining({ code: "invalid_token" }));
  });

  test("when no order is sent, then it is missing_token", () => {
    expect(() => verifyWorkspacePurge(null, purge, [key])).toThrow(expect.objectContaining({ code: "missing_token" }));
  });
});
