import { describe, expect, test } from "bun:test";
import { signPrincipal, signingKeyFrom, verifyPrincipal, type Principal } from "@ws/shared";
import { createPrincipalSigner } from "./principal-signer";

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
const decode = (token: string, part: number) => JSON.parse(Buffer.from(token.split(".")[part]!, "base64url").toString("utf8"));

describe("principal signer", () => {
  test("when a token is signed, then the services' verifier accepts it and returns the principal", async () => {
    const sign = await createPrincipalSigner(key);
    expect(await verifyPrincipal(sign(principal, request), request, key)).toEqual(principal);
  });

  test("when compared with signPrincipal, then header and claims are the same", async () => {
    const sign = await createPrincipalSigner(key);
    const ours = sign(principal, request);
    const theirs = await signPrincipal(principal, request, key);
    expect(decode(ours, 0)).toEqual(decode(theirs, 0));
    const { iat: a, exp: b, ...claims } = decode(ours, 1);
    const { iat: c, exp: d, ...expected } = decode(theirs, 1);
    expect(claims).toEqual(expected);
    expect(Math.abs(a - c)).toBeLessThanOrEqual(1);
    expect(b - a).toBe(d - c);
  });

  test("when the token is used for another path, or signed with another key, then it is refused", async () => {
    const sign = await createPrincipalSigner(key);
    await expect(verifyPrincipal(sign(principal, request), { method: "GET", path: "/v1/new-page/y" }, key)).rejects.toThrow();
    const forged = (await createPrincipalSigner(signingKeyFrom("z".repeat(43))))(principal, request);
    await expect(verifyPrincipal(forged, request, key)).rejects.toThrow();
  });
});
