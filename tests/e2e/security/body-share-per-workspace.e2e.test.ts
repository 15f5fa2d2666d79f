import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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
 * on raw sockets: the bytes a service has received stay charged until answered.
 */
let system: TestSystem;
let hog: Tenant;
let neighbour: Tenant;
let hogPage: string;
let neighbourPage: string;
beforeAll(async () => {
  system = await startSystem({ env: { MAX_INFLIGHT_BODY_BYTES: String(24 * MiB) } });
  [hog, neighbour] = [await seedTenant(system), await seedTenant(system)];
  hogPage = (await apiClient(system.baseUrl, await hog.key())("POST", "/v1/new-page", { title: "hog" })).body.id;
  neighbourPage = (await apiClient(system.baseUrl, await neighbour.key())("POST", "/v1/new-page", { title: "neighbour" })).body.id;
});
afterAll(() => system?.stop());

const open: RawConnection[] = [];
afterAll(() => {
  while (open.length) open.pop()!.close();
});

/** A PUT through the gateway announcing `declared` bytes, of which `sent` are sent: the gateway passes them on as they come. */
async function holdUpload(key: string, pageId: string, declared: number, sent: number): Promise<RawConnection> {
  const connection = rawConnection(portOf(system.baseUrl));
  open.push(connection);
  await connection.write(
    `PUT /v1/new-page/${pageId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n{"content":"`,
  );
  const filler = Buffer.alloc(256 * 1024, "x");
  for (let written = 0; written < sent; written += filler.length) await connection.write(filler.subarray(0, Math.min(filler.length, sent - written)));
  return connection;
}

function putContent(key: string, pageId: string, content: string) {
  return fetch(`${system.baseUrl}/v1/new-page/${pageId}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ content }),
  }).then(readResponse);
}

describe("a service's budget of request bodies is shared between workspaces", () => {
  test("when one workspace holds half of a service's body budget, then its next body is 429 while another workspace's large body still passes", async () => {
    // Two keys: the share is the workspace's, whichever of its keys the bodies come with.
    const [first, second] = [await hog.key(), await hog.key()];
    await holdUpload(first, hogPage, 7 * MiB, 5.5 * MiB);
    await holdUpload(second, hogPage, 7 * MiB, 5.5 * MiB);
    // The bytes sent reach the service and are charged there: 11 MiB of the workspace's 12, so one more MiB is refused.
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
