import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { expectError } from "../../harness/assertions";
import { apiClient, type Call } from "../../harness/http";
import { eventually } from "../../harness/eventually";
import { holdingRelay, type HoldingRelay } from "../../harness/holding-relay";
import { portOf, rawConnection, rawExchange, type RawConnection } from "../../harness/raw-http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant, type Tenant } from "../../harness/tenant";
import { metric } from "../security/helpers";

const PAGES = "/v1/new-page";
let system: TestSystem;
let relay: HoldingRelay;

beforeAll(async () => {
  // The pages service sits behind a relay the tests can hold, to catch a request while it runs.
  relay = await holdingRelay();
  system = await startSystem({ gatewayEnv: { PAGES_URL: relay.url } });
  relay.setTarget(system.pagesUrl);
  // Starting the processes takes more than a hook's default few seconds on a busy machine.
}, 120_000);
afterAll(async () => {
  await system?.stop();
  relay?.stop();
});

async function tenantWithKey(on: TestSystem = system): Promise<{ tenant: Tenant; key: string; call: Call }> {
  const tenant = await seedTenant(on);
  const key = await tenant.key();
  return { tenant, key, call: apiClient(on.baseUrl, key) };
}

const withKey = (value: string) => ({ "idempotency-key": value });
const uniqueKey = () => `test-${crypto.randomUUID()}`;

async function pageCount(call: Call): Promise<number> {
  return (await call("GET", PAGES)).body.total;
}

describe("Idempotency-Key: replay", () => {
  test("when a create is retried with the same key and body, then the first answer is replayed, marked, and the page made once", async () => {
    const { call } = await tenantWithKey();
    const key = uniqueKey();
    const before = relay.count("POST", PAGES);
    const first = await call("POST", PAGES, { title: "Once" }, withKey(key));
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotency-replayed")).toBeNull();
    const second = await call("POST", PAGES, { title: "Once" }, withKey(key));
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotency-replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
    for (const header of ["etag", "location", "content-type"]) expect(second.headers.get(header)).toBe(first.headers.get(header));
    // The replay has its own request id and counts against the rate limit.
    expect(second.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    if (second.headers.get("x-ratelimit-reset") === first.headers.get("x-ratelimit-reset")) {
      expect(Number(second.headers.get("x-ratelimit-remaining"))).toBe(Number(first.headers.get("x-ratelimit-remaining")) - 1);
    }
    expect(relay.count("POST", PAGES) - before).toBe(1);
    expect(await pageCount(call)).toBe(1);
  });

  test("when the same key is sent by two API keys, then each gets its own result", async () => {
    const { tenant, call } = await tenantWithKey();
    const other = apiClient(system.baseUrl, await tenant.key());
    const key = uniqueKey();
    const mine = await call("POST", PAGES, { title: "Shared key" }, withKey(key));
    const theirs = await other("POST", PAGES, { title: "Shared key" }, withKey(key));
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.headers.get("idempotency-replayed")).toBeNull();
  });

  test("when the same key comes with another body or on another operation, then 422 idempotency_key_reused and nothing is made", async () => {
    const { call } = await tenantWithKey();
    const key = uniqueKey();
    expect((await call("POST", PAGES, { title: "A" }, withKey(key))).status).toBe(201);
    expectError(await call("POST", PAGES, { title: "B" }, withKey(key)), 422, "idempotency_key_reused", ["Idempotency-Key"]);
    expectError(await call("POST", "/api/calendar/calendars", { title: "A" }, withKey(key)), 422, "idempotency_key_reused");
    expect(await pageCount(call)).toBe(1);
    expect((await call("GET", "/api/calendar/calendars")).body.total).toBe(0);
  });

  test("when the first answer says nothing was done (a 4xx), then the key is free and a retry runs again", async () => {
    const { call } = await tenantWithKey();
    const key = uniqueKey();
    const before = relay.count("POST", PAGES);
    expectError(await call("POST", PAGES, { title: "" }, withKey(key)), 422, "validation_error", ["title"]);
    expectError(await call("POST", PAGES, { title: "" }, withKey(key)), 422, "validation_error", ["title"]);
    expect(relay.count("POST", PAGES) - before).toBe(2);
    const fixed = await call("POST", PAGES, { title: "Fixed" }, withKey(key));
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get("idempotency-replayed")).toBeNull();
  });

  test("when the service answers 503 (not carried out), then the key is freed and the retry creates the page once", async () => {
    const { call } = await tenantWithKey();
    const key = uniqueKey();
    relay.answerUnavailable(1);
    expectError(await call("POST", PAGES, { title: "After outage" }, withKey(key)), 503, "service_unavailable");
    const retry = await call("POST", PAGES, { title: "After outage" }, withKey(key));
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotency-replayed")).toBeNull();
    expect(await pageCount(call)).toBe(1);
  });

  test("when the key is 255 visible characters it is taken; 256 characters or a control character is 400 naming Idempotency-Key", async () => {
    const { call } = await tenantWithKey();
    expect((await call("POST", PAGES, { title: "Long key" }, withKey("k".repeat(255)))).status).toBe(201);
    expectError(await call("POST", PAGES, { title: "Too long" }, withKey("k".repeat(256))), 400, "bad_request", ["Idempotency-Key"]);
    expectError(await call("POST", PAGES, { title: "Tab" }, withKey("a\tb")), 400, "bad_request", ["Idempotency-Key"]);
    expect(await pageCount(call)).toBe(1);
  });

  test("when a key comes on a GET, PUT or DELETE, then it is ignored: those methods are idempotent already", async () => {
    const { call } = await tenantWithKey();
    const page = (await call("POST", PAGES, { title: "Plain" })).body;
    const key = uniqueKey();
    expect((await call("PUT", `${PAGES}/${page.id}`, { title: "One" }, withKey(key))).body.title).toBe("One");
    const second = await call("PUT", `${PAGES}/${page.id}`, { title: "Two" }, withKey(key));
    expect(second.body.title).toBe("Two");
    expect(second.headers.get("idempotency-replayed")).toBeNull();
    expect((await call("GET", `${PAGES}/${page.id}`, undefined, withKey(key))).status).toBe(200);
  });
});

describe("Idempotency-Key: a retry while the first request runs", () => {
  test("when a duplicate arrives while the first is still running, then it gets 409 idempotency_key_in_use with Retry-After, and later the replay", async () => {
    const { call } = await tenantWithKey();
    const key = uniqueKey();
    const before = relay.count("POST", PAGES);
    const release = relay.hold();
    const first = call("POST", PAGES, { title: "Slow" }, withKey(key));
    await relay.arrived("POST", PAGES, before + 1);
    const duplicate = await call("POST", PAGES, { title: "Slow" }, withKey(key));
    expectError(duplicate, 409, "idempotency_key_in_use");
    expect(duplicate.headers.get("retry-after")).toBe("1");
    release();
    const original = await first;
    expect(original.status).toBe(201);
    const later = await call("POST", PAGES, { title: "Slow" }, withKey(key));
    expect(later.headers.get("idempotency-replayed")).toBe("true");
    expect(later.body.id).toBe(original.body.id);
    expect(relay.count("POST", PAGES) - before).toBe(1);
  });
});

/** Sends a raw HTTP request on a socket and closes the socket right after writing `sendBytes` of it, without reading the answer. */
async function sendAndHangUp(path: string, apiKey: string, headers: Record<string, string>, body: string, sendBytes?: number): Promise<void> {
  const url = new URL(system.baseUrl);
  const payload = Buffer.from(body);
  const head = [
    `POST ${path} HTTP/1.1`,
    `Host: ${url.host}`,
    `Authorization: Bearer ${apiKey}`,
    "Content-Type: application/json",
    `Content-Length: ${payload.length}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    "",
    "",
  ].join("\r\n");
  const message = Buffer.concat([Buffer.from(head), payload]);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.once("connect", () => socket.write(message.subarray(0, sendBytes ?? message.length), () => resolve()));
  });
  socket.destroy();
}

describe("Idempotency-Key: a retry after the connection was cut", () => {
  test("when the client hangs up after sending the whole request, then the request still completes once and the retry gets its answer", async () => {
    const { key, call } = await tenantWithKey();
    const idempotencyKey = uniqueKey();
    const before = relay.count("POST", PAGES);
    const release = relay.hold();
    await sendAndHangUp(PAGES, key, withKey(idempotencyKey), JSON.stringify({ title: "Cut off" }));
    await relay.arrived("POST", PAGES, before + 1);
    release();
    // The first attempt may still be storing its answer: a 409 says so, and the retry comes again.
    let retry = await call("POST", PAGES, { title: "Cut off" }, withKey(idempotencyKey));
    for (let attempt = 0; retry.status === 409 && attempt < 50; attempt++) {
      await Bun.sleep(100);
      retry = await call("POST", PAGES, { title: "Cut off" }, withKey(idempotencyKey));
    }
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotency-replayed")).toBe("true");
    expect(retry.body.title).toBe("Cut off");
    expect(relay.count("POST", PAGES) - before).toBe(1);
    const list = await call("GET", PAGES);
    expect(list.body.data.map((page: { id: string }) => page.id)).toEqual([retry.body.id]);
  });

  test("when the connection is cut halfway through the body, then nothing is kept and the retry creates the page once", async () => {
    const { key, call } = await tenantWithKey();
    const idempotencyKey = uniqueKey();
    const body = JSON.stringify({ title: "Half sent", content: "x".repeat(64 * 1024) });
    await sendAndHangUp(PAGES, key, withKey(idempotencyKey), body, 2048);
    const retry = await call("POST", PAGES, JSON.parse(body), withKey(idempotencyKey));
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotency-replayed")).toBeNull();
    expect(await pageCount(call)).toBe(1);
  });
});

describe("Idempotency-Key: across gateway replicas", () => {
  const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

  test.skipIf(!shared)("when the retry reaches another replica, then it replays the answer the first replica stored", async () => {
    const replicas = await startSystem({ replicas: 2 });
    try {
      const tenant = await seedTenant(replicas);
      const key = await tenant.key();
      const [one, two] = replicas.baseUrls.map((url) => apiClient(url, key)) as [Call, Call];
      const idempotencyKey = uniqueKey();
      const first = await one("POST", PAGES, { title: "Replicated" }, withKey(idempotencyKey));
      const second = await two("POST", PAGES, { title: "Replicated" }, withKey(idempotencyKey));
      expect(first.status).toBe(201);
      expect(second.headers.get("idempotency-replayed")).toBe("true");
      expect(second.body).toEqual(first.body);
      expect((await two("GET", PAGES)).body.total).toBe(1);
    } finally {
      await replicas.stop();
    }
  });
});

describe("Idempotency-Key: only visible ASCII", () => {
  test("when the key has a space, then 400 naming Idempotency-Key and nothing is made", async () => {
    const { call } = await tenantWithKey();
    expectError(await call("POST", PAGES, { title: "Space" }, withKey("a b")), 400, "bad_request", ["Idempotency-Key"]);
    expect(await pageCount(call)).toBe(0);
  });

  test("when two Idempotency-Key headers are sent, then 400 naming Idempotency-Key, not one key made of both, and nothing is made", async () => {
    const { key, call } = await tenantWithKey();
    const body = JSON.stringify({ title: "Twice" });
    const request =
      `POST ${PAGES} HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nIdempotency-Key: zz1\r\nIdempotency-Key: zz2\r\nConnection: close\r\n\r\n${body}`;
    const [answer] = await rawExchange(portOf(system.baseUrl), request, 1);
    expectError(answer!, 400, "bad_request", ["Idempotency-Key"]);
    expect(await pageCount(call)).toBe(0);
  });
});

describe("Idempotency-Key: the answers held for clients that do not read are bounded by the key's share of the body budget", () => {
  const MiB = 1024 * 1024;
  /** One replay holds its request (7 MiB) and its answer (7 MiB) within the 16 MiB share; a second one while the first waits does not fit. */
  const CONTENT_BYTES = 7 * MiB;
  let small: TestSystem;

  beforeAll(async () => {
    small = await startSystem({ gatewayEnv: { MAX_INFLIGHT_BODY_BYTES_PER_KEY: String(16 * MiB) } });
  }, 120_000);
  afterAll(async () => {
    await small?.stop();
  });

  /** The gateway's own count of bytes charged to its body budget (its metrics). */
  const bytesInTransit = () => metric(small.adminUrl, "request_body_bytes_in_transit");

  /**
   * Sends the create on a connection that reads nothing: past what the sockets'
   * buffers take (a few MiB), the answer waits at the gateway for this client.
   */
  async function unreadPost(apiKey: string, idempotencyKey: string, body: string): Promise<RawConnection> {
    const connection = rawConnection(portOf(small.baseUrl));
    connection.socket.pause();
    const payload = Buffer.from(body);
    const head =
      `POST ${PAGES} HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${payload.length}\r\nIdempotency-Key: ${idempotencyKey}\r\n\r\n`;
    await connection.write(Buffer.concat([Buffer.from(head), payload]));
    return connection;
  }

  /** Reads what the connection was sent, now that its client takes it. */
  async function readNow(connection: RawConnection) {
    connection.socket.resume();
    const [answer] = await connection.responses(1, 30_000);
    connection.close();
    return answer!;
  }

  const createBody = (title: string) => JSON.stringify({ title, content: "x".repeat(CONTENT_BYTES) });

  test("when replays wait on clients that do not read, then a replay past the key's share is 429 with Retry-After, and once those clients read or go away it replays the same body again", async () => {
    const { key: apiKey, call } = await tenantWithKey(small);
    const key = uniqueKey();
    const body = createBody("Large");
    const first = await call("POST", PAGES, body, withKey(key));
    expect(first.status).toBe(201);
    const answerBytes = Buffer.byteLength(first.text);

    // Its request given back, only the replayed answer it has not taken stays charged.
    const waiting = await unreadPost(apiKey, key, body);
    expect(await eventually(bytesInTransit, (bytes) => bytes === answerBytes)).toBe(answerBytes);
    const refused = await call("POST", PAGES, body, withKey(key));
    expectError(refused, 429, "rate_limit_exceeded");
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.body.error.details.reason).toBe("answers_in_transit");

    const taken = await readNow(waiting);
    expect(taken.status).toBe(201);
    expect(taken.headers["idempotency-replayed"]).toBe("true");
    expect(taken.headers["content-length"]).toBe(String(answerBytes));
    expect(taken.text).toBe(first.text);
    expect(await eventually(bytesInTransit, (bytes) => bytes === 0)).toBe(0);

    const abandoned = await unreadPost(apiKey, key, body);
    expect(await eventually(bytesInTransit, (bytes) => bytes === answerBytes)).toBe(answerBytes);
    abandoned.close();
    expect(await eventually(bytesInTransit, (bytes) => bytes === 0)).toBe(0);

    const again = await call("POST", PAGES, body, withKey(key));
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    expect(await pageCount(call)).toBe(1);
  }, 60_000);

  test("when the first answer waits on a client that does not read, then it is not refused (the work was done), and it holds the key's room until read", async () => {
    const { key: apiKey, call } = await tenantWithKey(small);
    const key = uniqueKey();
    const body = createBody("First, unread");
    const waiting = await unreadPost(apiKey, key, body);
    await eventually(() => pageCount(call), (count) => count === 1);
    expect(await eventually(bytesInTransit, (bytes) => bytes >= CONTENT_BYTES)).toBeGreaterThanOrEqual(CONTENT_BYTES);
    // The first attempt may still be storing its answer: a 409 says so.
    const replay = await eventually(() => call("POST", PAGES, body, withKey(key)), (answer) => answer.status !== 409);
    expectError(replay, 429, "rate_limit_exceeded");

    const taken = await readNow(waiting);
    expect(taken.status).toBe(201);
    expect(taken.headers["idempotency-replayed"]).toBeUndefined();
    expect(Buffer.byteLength(taken.text)).toBeGreaterThan(CONTENT_BYTES);
    expect(await eventually(bytesInTransit, (bytes) => bytes === 0)).toBe(0);
    const again = await call("POST", PAGES, body, withKey(key));
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.text).toBe(taken.text);
  }, 60_000);
});
