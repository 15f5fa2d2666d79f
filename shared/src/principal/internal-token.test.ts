import { describe, expect, test } from "bun:test";
import { SignJWT } from "jose";
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

  test("when the token has expired, then it is refused", async () => {
    const past = Math.floor(Date.now() / 1000) - 120;
    const expired = await new SignJWT({ ...principal, htm: request.method, htu: request.path })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("workspace-gateway")
      .setAudience("workspace-services")
      .setIssuedAt(past)
      .setExpirationTime(past + 60)
      .sign(key);
    await expect(verifyPrincipal(expired, request, key)).rejects.toThrow();
  });

  test("when no token is sent, then it is missing_token", async () => {
    await expect(verifyPrincipal(null, request, key)).rejects.toMatchObject({ code: "missing_token" });
  });
});
