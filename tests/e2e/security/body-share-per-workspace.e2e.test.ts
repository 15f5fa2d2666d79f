import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { PRINCIPAL_HEADER, signPrincipal, signingKeyFrom, uuidv7 } from "@ws/shared";
import { expectError } from "../../harness/assertions";
import { eventually } from "../../harness/eventually";
import { apiClient, readResponse } from "../../harness/http";
import { portOf, rawConnection, type RawConnection } from "../../harness/raw-http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";

const MiB = 1024 * 1024;

/**
 * Each service holds at most 24 MiB of request bodies, so one workspace may
 * hold 12 MiB of them; the gateway's own limits (64 MiB, 32 MiB a key) are
 * wider, so what is measured here is the service's share. Uploads are held open
 * on raw sockets straight to the pages service, with a principal signed as the
 * gateway would (how soon a gateway passes on a streamed body is its runtime's
 * business): the bytes a service has received stay charged until answered.
 */
const SIGNING_KEY = randomBytes(32).toString("base64url");
let system: TestSystem;
let hog: Tenant;
let neighbour: Tenant;
let hogPage: string;
let neighbourPage: string;
beforeAll(async () => {
  system = await startSystem({ env: { MAX_INFLIGHT_BODY_BYTES: String(24 * MiB), INTERNAL_SIGNING_KEY: SIGNING_KEY } });
  [hog, neighbour] = [await seedTenant(system), await seedTenant(system)];
  hogPage = (await apiClient(system.baseUrl, await hog.key())("POST", "/v1/new-page", { title: "hog" })).body.id;
  neighbourPage = (await apiClient(system.baseUrl, await neighbour.key())("POST", "/v1/new-page", { title: "neighbour" })).body.id;
});
afterAll(() => system?.stop());

const open: RawConnection[] = [];
afterAll(() => {
  while (open.length) open.pop()!.close();
});

/** A PUT straight to the pages service, as the gateway would send it for the tenant, announcing `declared` bytes of which `sent` are sent. */
async function holdUpload(tenant: Tenant, pageId: string, declared: number, sent: number, on = system): Promise<RawConnection> {
  const path = `/v1/new-page/${pageId}`;
  const principal = { workspace_id: tenant.workspaceId, member_id: tenant.ownerId, key_id: uuidv7(), scopes: ["docs:update" as const], target_team_ids: null, visible_team_ids: [], request_id: uuidv7() };
  const token = signPrincipal(principal, { method: "PUT", path }, signingKeyFrom(SIGNING_KEY));
  const connection = rawConnection(portOf(on.pagesUrl));
  open.push(connection);
  await connection.write(
    `PUT ${path} HTTP/1.1\r\nHost: x\r\n${PRINCIPAL_HEADER}: ${token}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n{"content":"`,
  );
  const filler = Buffer.alloc(256 * 1024, "x");
  for (let written = 0; written < sent; written += filler.length) await connection.write(filler.subarray(0, Math.min(filler.length, sent - written)));
  return connection;
}

function putContent(key: string, pageId: string, content: string, on = system) {
  return fetch(`${on.baseUrl}/v1/new-page/${pageId}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ content }),
  }).then(readResponse);
}

describe("a service's budget of request bodies is shared between workspaces", () => {
  test("when one workspace holds half of a service's body budget, then its next body is 429 while another workspace's large body still passes", async () => {
    // Uploads of two keys (each principal names a key of its own), then a third key: the share is the workspace's.
    const first = await hog.key();
    await holdUpload(hog, hogPage, 5.75 * MiB, 64 * 1024);
    await holdUpload(hog, hogPage, 5.75 * MiB, 64 * 1024);
    // A declared length is charged at once: 11.5 MiB of the workspace's 12, so one more MiB is refused.
    const refused = await eventually(
      () => putContent(first, hogPage, "x".repeat(MiB)),
      (answer) => answer.status === 429,
    );
    expectError(refused, 429, "rate_limit_exceeded");
    expect(refused.body.error.message).toContain("workspace");
    expect(refused.headers.get("retry-after")).toBe("1");
    // The other half is the other workspace's: its 10 MB body passes while the hog's bodies are held.
    const large = await putContent(await neighbour.key(), neighbourPage, "y".repeat(10_000_000));
    expect(large.status).toBe(200);
    expect(large.body.content).toHaveLength(10_000_000);
  });
});

describe("a service's budget with its defaults, against two workspaces holding all they may", () => {
  let defaults: TestSystem;
  beforeAll(async () => {
    defaults = await startSystem({ env: { INTERNAL_SIGNING_KEY: SIGNING_KEY } });
  });
  afterAll(() => defaults?.stop());

  test("when two workspaces hold bodies sent slowly up to what each may, then a third workspace's largest body still passes", async () => {
    const [first, second, third] = [await seedTenant(defaults), await seedTenant(defaults), await seedTenant(defaults)];
    const pageOf = async (tenant: Tenant) => (await apiClient(defaults.baseUrl, await tenant.key())("POST", "/v1/new-page", { title: "page" })).body.id as string;
    const [firstPage, secondPage, thirdPage] = [await pageOf(first), await pageOf(second), await pageOf(third)];
    const held = 9.5 * MiB;
    await holdUpload(first, firstPage, held, 64 * 1024, defaults);
    await holdUpload(second, secondPage, held, 64 * 1024, defaults);
    await holdUpload(first, firstPage, held, 64 * 1024, defaults);
    // The second workspace already holds some: it must leave the largest body free, so its next is its 429.
    const refused = await holdUpload(second, secondPage, held, 0, defaults);
    const [answer] = await refused.responses(1, 10_000);
    expect(answer?.status).toBe(429);
    expect(answer?.body?.error?.code).toBe("rate_limit_exceeded");
    const large = await putContent(await third.key(), thirdPage, "z".repeat(10_000_000), defaults);
    expect(large.status).toBe(200);
    expect(large.body.content).toHaveLength(10_000_000);
  });
});

describe("a request around the gateway", () => {
  test("when it carries no valid principal, then the service answers 401 without waiting for its body", async () => {
    const connection = rawConnection(portOf(system.pagesUrl));
    open.push(connection);
    await connection.write(
      `PUT /v1/new-page/${neighbourPage} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${8 * MiB}\r\n\r\n{"content":"`,
    );
    // Only the first bytes of 8 MiB are ever sent: an answer can only come from a service that does not read the body.
    const [answer] = await connection.responses(1, 5_000);
    expect(answer?.status).toBe(401);
    expect(answer?.body?.error?.code).toBe("missing_token");
  });
});
