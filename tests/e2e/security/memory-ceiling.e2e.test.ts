import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectError } from "../../harness/assertions";
import { eventually } from "../../harness/eventually";
import { apiClient, readResponse } from "../../harness/http";
import { portOf, rawConnection, type RawConnection, type RawResponse } from "../../harness/raw-http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";
import { metric } from "./helpers";

const MiB = 1024 * 1024;

/**
 * Small budgets, so that a few held uploads reach them: each service holds at
 * most 10 MiB of bodies, the gateway 20 MiB, and one key 10 MiB of those (one
 * workspace too: half the gateway's budget). Every key here is of a workspace
 * of its own, so that only the shares a test is about are reached.
 * Uploads are held open on raw sockets: the bytes a client has announced but not
 * yet sent stay charged, which is exactly what used to grow without bound.
 */
let system: TestSystem;
beforeAll(async () => {
  system = await startSystem({
    env: { MAX_INFLIGHT_BODY_BYTES: String(10 * MiB) },
    gatewayEnv: { MAX_INFLIGHT_BODY_BYTES: String(20 * MiB), MAX_INFLIGHT_BODY_BYTES_PER_KEY: String(10 * MiB) },
  });
});
afterAll(() => system?.stop());

/** The page each key writes to, in the key's own workspace. */
const pageOf = new Map<string, string>();

/** A key of a new workspace (or of `tenant`'s), which holds one page. */
async function newKey(tenant?: Tenant): Promise<string> {
  const key = await (tenant ?? (await seedTenant(system))).key();
  pageOf.set(key, (await apiClient(system.baseUrl, key)("POST", "/v1/new-page", { title: "target" })).body.id);
  return key;
}

const open: RawConnection[] = [];
function closeAll() {
  while (open.length) open.pop()!.close();
}

/** A PUT announcing `declared` bytes of which `sent` are sent now; the rest may follow with `finish`. */
async function holdUpload(key: string, declared: number, sent: number) {
  const connection = rawConnection(portOf(system.baseUrl));
  open.push(connection);
  const prefix = '{"content":"';
  await connection.write(
    `PUT /v1/new-page/${pageOf.get(key)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n${prefix}`,
  );
  const filler = Buffer.alloc(256 * 1024, "x");
  let written = prefix.length;
  const fill = async (upTo: number) => {
    while (written < upTo) {
      const next = Math.min(filler.length, upTo - written);
      await connection.write(filler.subarray(0, next));
      written += next;
    }
  };
  await fill(sent);
  return {
    connection,
    async finish(): Promise<RawResponse | undefined> {
      await fill(declared - 2);
      await connection.write('"}');
      return (await connection.responses(1))[0];
    },
  };
}

async function smallPut(key: string) {
  return readResponse(
    await fetch(`${system.baseUrl}/v1/new-page/${pageOf.get(key)}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "small" }),
    }),
  );
}

/** The gateway's own count of body bytes in transit (its metrics), to know the held uploads are charged. */
const bytesInTransit = () => metric(system.adminUrl, "request_body_bytes_in_transit");

describe("request bodies in transit are bounded, and past the bound refused instead of buffered", () => {
  test("when one key holds its whole share, then its next body is 429 with Retry-After while other keys go on", async () => {
    const [a, b] = [await newKey(), await newKey()];
    try {
      const first = await holdUpload(a, 5 * MiB, 64 * 1024);
      await holdUpload(a, 5 * MiB, 64 * 1024);
      expect(await eventually(bytesInTransit, (bytes) => bytes === 10 * MiB)).toBe(10 * MiB);
      const refused = await smallPut(a);
      expectError(refused, 429, "rate_limit_exceeded");
      expect(refused.headers.get("retry-after")).toBe("1");
      expect((await smallPut(b)).status).toBe(200);
      // Once one of its bodies has been answered, the key has room again.
      expect((await first.finish())?.status).toBe(200);
      expect((await eventually(() => smallPut(a), (answer) => answer.status === 200)).status).toBe(200);
    } finally {
      closeAll();
    }
  });

  test("when the gateway's budget is spent, then a body is 503 with Retry-After, and requests without a body still pass", async () => {
    const [a, b, c, d, e] = [await newKey(), await newKey(), await newKey(), await newKey(), await newKey()];
    try {
      // Each key holding nothing yet may take the room a key already holding some must leave free (5 MiB of 20 here).
      for (const key of [a, b, d, e]) await holdUpload(key, 5 * MiB, 64 * 1024);
      expect(await eventually(bytesInTransit, (bytes) => bytes === 20 * MiB)).toBe(20 * MiB);
      const refused = await smallPut(c);
      expectError(refused, 503, "service_unavailable");
      expect(refused.headers.get("retry-after")).toBe("1");
      expect((await apiClient(system.baseUrl, c)("GET", `/v1/new-page/${pageOf.get(c)}`)).status).toBe(200);
    } finally {
      closeAll();
    }
    // The held uploads went away: their bytes are given back.
    expect(await eventually(bytesInTransit, (bytes) => bytes === 0)).toBe(0);
    expect((await smallPut(c)).status).toBe(200);
  });

  test("when keys already holding room would take the room kept free, then they are refused 429 and a key holding nothing still gets it", async () => {
    const [a, b, c] = [await newKey(), await newKey(), await newKey()];
    try {
      for (const key of [a, a, b]) await holdUpload(key, 5 * MiB, 64 * 1024);
      expect(await eventually(bytesInTransit, (bytes) => bytes === 15 * MiB)).toBe(15 * MiB);
      // b holds 5 MiB within its share, but its next body would leave less than the 5 MiB kept free.
      const refused = await smallPut(b);
      expectError(refused, 429, "rate_limit_exceeded");
      expect(refused.headers.get("retry-after")).toBe("1");
      expect((await smallPut(c)).status).toBe(200);
    } finally {
      closeAll();
    }
  });

  test("when a new key of a workspace already holding room would take the room kept free, then it is refused 429 like that workspace's other keys", async () => {
    const workspace = await seedTenant(system);
    const [first, b, c] = [await newKey(workspace), await newKey(), await newKey()];
    const second = await newKey(workspace);
    try {
      for (const key of [b, b, first]) await holdUpload(key, 5 * MiB, 64 * 1024);
      expect(await eventually(bytesInTransit, (bytes) => bytes === 15 * MiB)).toBe(15 * MiB);
      // The workspace holds 5 MiB through its first key: a second key of it is no newcomer, so the last 5 MiB stay free.
      const refused = await smallPut(second);
      expectError(refused, 429, "rate_limit_exceeded");
      expect(refused.body.error.message).toContain("workspace");
      expect((await smallPut(c)).status).toBe(200);
    } finally {
      closeAll();
    }
  });

  test("when a service's budget is spent by bodies arriving, then it answers 503 with Retry-After through the gateway", async () => {
    const [a, b] = [await newKey(), await newKey()];
    try {
      // Each is within the gateway's limits; together their bytes pass the service's 10 MiB.
      const uploads = [await holdUpload(a, 8 * MiB, 6 * MiB), await holdUpload(b, 8 * MiB, 6 * MiB)];
      const answered = () => Promise.all(uploads.map(({ connection }) => connection.responses(1, 0))).then((answers) => answers.flat());
      const refused = await eventually(answered, (answers) => answers.length > 0);
      expect(refused).toHaveLength(1);
      expectError(refused[0]!, 503, "service_unavailable");
      expect(refused[0]!.headers["retry-after"]).toBe("1");
    } finally {
      closeAll();
    }
    expect((await eventually(() => smallPut(a), (answer) => answer.status === 200)).status).toBe(200);
  });
});

describe("documentation asked for by clients that read none of it", () => {
  test("when 200 connections on each port each ask for the 1.7 MB Swagger bundle four times and read nothing, then the gateway holds no copy of it per connection", async () => {
    const sites = [
      { url: system.baseUrl, bundle: "/docs/assets/swagger-ui-bundle.js" },
      { url: system.adminUrl, bundle: "/admin/docs/assets/swagger-ui-bundle.js" },
    ];
    let size = 0;
    for (const site of sites) {
      const first = await fetch(`${site.url}${site.bundle}`);
      size = (await first.arrayBuffer()).byteLength;
      expect(first.status).toBe(200);
      expect(size).toBeGreaterThan(1_000_000);
    }
    const before = await metric(system.adminUrl, "process_resident_memory_bytes");
    const perSite = 200;
    try {
      for (const site of sites) {
        for (let index = 0; index < perSite; index++) {
          const connection = rawConnection(portOf(site.url));
          open.push(connection);
          connection.socket.pause();
          await connection.write(`GET ${site.bundle} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(4));
        }
      }
      // Every connection's first answer is made and waits for its client.
      await Bun.sleep(2000);
      const grown = (await metric(system.adminUrl, "process_resident_memory_bytes")) - before;
      const connections = perSite * sites.length;
      console.log(`gateway resident memory: +${(grown / MiB).toFixed(1)} MiB for ${connections} connections, the bundle ${(size / MiB).toFixed(2)} MiB`);
      // A copy each would be 400 × 1.7 MB at least; what is held is the connections themselves.
      expect(grown).toBeLessThan((connections * size) / 10);
      for (const site of sites) expect((await fetch(`${site.url}${site.bundle}`)).status).toBe(200);
    } finally {
      closeAll();
    }
  }, 60_000);
});
