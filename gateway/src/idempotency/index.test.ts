import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError, createBodyBudget, outcomeUnknown, createLogger, migrate, openDatabase, toResponse, uuidv7, type BodyLease, type Database } from "@ws/shared";
import { gatewayProcess } from "../definition";
import { ANSWERS_IN_TRANSIT, createIdempotency } from ".";

let database: Database;
let dataDir: string;
let apiKeyId: string;

/** A real (embedded) PostgreSQL with the gateway's migrations, and one API key for the records to belong to. */
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "idempotency-unit-"));
  database = await openDatabase({ dataDir, poolMax: 1 });
  await migrate(database.sql, "gateway", gatewayProcess.migrations);
  const workspace = uuidv7();
  const member = uuidv7();
  apiKeyId = uuidv7();
  await database.sql`insert into workspaces (id, name) values (${workspace}, 'w')`;
  await database.sql`insert into members (id, workspace_id, email, role) values (${member}, ${workspace}, 'o@example.com', 'owner')`;
  await database.sql`
    insert into api_keys (id, workspace_id, name, created_by, key_hash, display_prefix, scopes)
    values (${apiKeyId}, ${workspace}, 'k', ${member}, ${new Uint8Array([1, 2, 3])}, 'wsk_', '{}')`;
  // Starting PGlite and migrating takes seconds on a busy machine.
}, 60_000);

afterAll(async () => {
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
});

const logger = createLogger("gateway", "silent");
const operation = { operationId: "createPage", method: "POST" };

const MiB = 1024 * 1024;
const roomy = createBodyBudget({ totalBytes: 1024 * MiB });

function post(key: string, body = '{"title":"t"}', answerLease: BodyLease = roomy.lease()) {
  const request = new Request("http://gateway/v1/new-page", { method: "POST", headers: { "idempotency-key": key } });
  return { request, operation, apiKeyId, access: () => "[]", body: new TextEncoder().encode(body), answerLease };
}

function counting(answer: () => Response | Promise<Response>) {
  let calls = 0;
  return {
    run: () => {
      calls++;
      return Promise.resolve(answer());
    },
    calls: () => calls,
  };
}

describe("idempotency, in process against the gateway's real schema", () => {
  test("when the first answer is a 502 (outcome unknown), then it is kept and replayed, and the work is not run again", async () => {
    const idempotency = createIdempotency({ sql: database.sql, logger, upstreamTimeoutMs: 1000, databaseTimeoutMs: 2000 });
    const work = counting(() => {
      throw outcomeUnknown("The service did not answer in time.");
    });
    const key = crypto.randomUUID();
    await expect(idempotency.run(post(key), work.run)).rejects.toMatchObject({ status: 502 });
    const replayed = toResponse(await idempotency.run(post(key), work.run));
    expect(replayed.status).toBe(502);
    expect(replayed.headers.get("idempotency-replayed")).toBe("true");
    expect(((await replayed.json()) as { error: { code: string; details: { outcome: string } } }).error).toMatchObject({ code: "service_unavailable", details: { outcome: "unknown" } });
    expect(work.calls()).toBe(1);
  });

  test("when a 503 says the work was not done, then the key is free and the next attempt runs it", async () => {
    const idempotency = createIdempotency({ sql: database.sql, logger, upstreamTimeoutMs: 1000, databaseTimeoutMs: 2000 });
    let first = true;
    const work = counting(() => {
      if (first) {
        first = false;
        throw new ApiError("service_unavailable", "down");
      }
      return Response.json({ id: "x" }, { status: 201 });
    });
    const key = crypto.randomUUID();
    await expect(idempotency.run(post(key), work.run)).rejects.toMatchObject({ status: 503 });
    expect((await idempotency.run(post(key), work.run)).status).toBe(201);
    expect(work.calls()).toBe(2);
  });

  test("when the attempt holding a key outlives its lock (its gateway stopped), then the key answers 502 service_unavailable, its outcome unknown, from then on", async () => {
    const idempotency = createIdempotency({ sql: database.sql, logger, upstreamTimeoutMs: 1000, databaseTimeoutMs: 2000 });
    const key = crypto.randomUUID();
    let releaseFirst!: () => void;
    const first = idempotency.run(post(key), () => new Promise<Response>((resolve) => (releaseFirst = () => resolve(Response.json({}, { status: 201 })))));
    await Bun.sleep(50);
    await expect(idempotency.run(post(key), () => Promise.resolve(new Response())).catch((error: ApiError) => error.code)).resolves.toBe("idempotency_key_in_use");
    // As if the lock ran out: the record's holder is presumed gone.
    await database.sql`update idempotency_keys set locked_until = now() - interval '1 second' where idempotency_key = ${key}`;
    const settled = await idempotency.run(post(key), () => Promise.resolve(Response.json({}, { status: 201 })));
    expect(settled.status).toBe(502);
    expect(settled.headers.get("idempotency-replayed")).toBe("true");
    releaseFirst();
    // The late first attempt finds its key settled and does not overwrite it.
    expect((await first).status).toBe(201);
    expect((await idempotency.run(post(key), () => Promise.resolve(new Response()))).status).toBe(502);
  });

  test("when a key's record outlives its lock without its attempt ever having been sent on (claimed, then answered 503, its release lost), then the next attempt runs afresh", async () => {
    const idempotency = createIdempotency({ sql: database.sql, logger, upstreamTimeoutMs: 1000, databaseTimeoutMs: 2000 });
    const key = crypto.randomUUID();
    let releaseFirst!: () => void;
    const first = idempotency.run(post(key), () => new Promise<Response>((resolve) => (releaseFirst = () => resolve(new Response(null, { status: 503 })))));
    await Bun.sleep(50);
    // What a claim that landed after its request was answered 503 leaves: a running record, never marked as sent on, past its lock.
    await database.sql`update idempotency_keys set forwarded = false, locked_until = now() - interval '1 second' where idempotency_key = ${key}`;
    const work = counting(() => Response.json({ id: "fresh" }, { status: 201 }));
    const ran = await idempotency.run(post(key), work.run);
    expect(ran.status).toBe(201);
    expect(ran.headers.get("idempotency-replayed")).toBeNull();
    expect(work.calls()).toBe(1);
    releaseFirst();
    await first;
    // The first attempt's release takes nothing of the fresh one's record.
    expect((await idempotency.run(post(key), () => Promise.resolve(new Response()))).headers.get("idempotency-replayed")).toBe("true");
  });

  test("when a record has expired, then the key is taken afresh, and the purge removes expired records only", async () => {
    const idempotency = createIdempotency({ sql: database.sql, logger, upstreamTimeoutMs: 1000, databaseTimeoutMs: 2000 });
    const expired = crypto.randomUUID();
    const live = crypto.randomUUID();
    const created = () => Promise.resolve(Response.json({ id: crypto.randomUUID() }, { status: 201 }));
    const firstId = ((await toResponse(await idempotency.run(post(expired), created)).json()) as { id: string }).id;
    await idempotency.run(post(live), created);
    await database.sql`update idempotency_keys set expires_at = now() - interval '1 second' where idempotency_key = ${expired}`;
    const again = toResponse(await idempotency.run(post(expired, '{"title":"another body is fine once expired"}'), created));
    expect(again.headers.get("idempotency-replayed")).toBeNull();
    expect(((await again.json()) as { id: string }).id).not.toBe(firstId);
    await database.sql`update idempotency_keys set expires_at = now() - interval '1 second' where idempotency_key = ${expired}`;
    expect(await idempotency.purgeExpired()).toBeGreaterThanOrEqual(1);
    const left = await database.sql`select idempotency_key from idempotency_keys where idempotency_key in (${expired}, ${live})`;
    expect(left.map((row) => row.idempotency_key)).toEqual([live]);
  });

  test("when the store is unreachable, then a request with a key is refused with 503 instead of running unguarded", async () => {
    const broken = await openDatabase({ url: "postgres://nobody@127.0.0.1:9/none", dataDir, poolMax: 1 });
    const idempotency = createIdempotency({ sql: broken.sql, logger, upstreamTimeoutMs: 1000, databaseTimeoutMs: 2000 });
    const work = counting(() => Response.json({}, { status: 201 }));
    await expect(idempotency.run(post(crypto.randomUUID()), work.run)).rejects.toMatchObject({ status: 503, code: "service_unavailable" });
    expect(work.calls()).toBe(0);
    // Without a key nothing is stored, so nothing is in the way.
    const plain = { ...post("unused"), request: new Request("http://gateway/v1/new-page", { method: "POST" }) };
    expect((await idempotency.run(plain, work.run)).status).toBe(201);
    await broken.close();
  });
});

describe("idempotency: which keys are taken", () => {
  test.each([
    ["a space", "a b"],
    ["the values of two Idempotency-Key headers, joined as a header list", "zz1, zz2"],
    ["a tab", "a\tb"],
    ["256 characters", "k".repeat(256)],
  ])("when the key has %s, then 400 bad_request naming Idempotency-Key and the work is not run", async (_, key) => {
    const idempotency = createIdempotency({ sql: database.sql, logger, upstreamTimeoutMs: 1000, databaseTimeoutMs: 2000 });
    const work = counting(() => Response.json({}, { status: 201 }));
    await expect(idempotency.run(post(key), work.run)).rejects.toMatchObject({ status: 400, code: "bad_request", details: { fields: ["Idempotency-Key"] } });
    expect(work.calls()).toBe(0);
  });

  test("when the key is 255 visible ASCII characters, the first and last of that range among them, then it is taken", async () => {
    const idempotency = createIdempotency({ sql: database.sql, logger, upstreamTimeoutMs: 1000, databaseTimeoutMs: 2000 });
    const work = counting(() => Response.json({}, { status: 201 }));
    const key = `!~${crypto.randomUUID()}`.padEnd(255, "k");
    expect((await idempotency.run(post(key), work.run)).status).toBe(201);
    expect(work.calls()).toBe(1);
  });
});

describe("idempotency: the answers it holds in memory are bounded by the body budget until sent", () => {
  /** A page answer of `bytes` bytes, distinct at every position, so that a cut or reordered replay shows. */
  function largeAnswer(bytes: number): Uint8Array<ArrayBuffer> {
    return Uint8Array.from({ length: bytes }, (_, index) => (index * 7 + (index >> 16)) & 0xff);
  }

  async function chunksOf(response: Response): Promise<Uint8Array[]> {
    const chunks: Uint8Array[] = [];
    const reader = response.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
    return chunks;
  }

  test("when earlier replays have not been taken by their clients, then a replay past the key's share is 429 with Retry-After, and once they are read it replays the same bytes again", async () => {
    const idempotency = createIdempotency({ sql: database.sql, logger, upstreamTimeoutMs: 1000, databaseTimeoutMs: 2000 });
    const budget = createBodyBudget({ totalBytes: 64 * MiB, perKeyBytes: 5 * MiB });
    // As the forward step makes it.
    const leaseOf = () => budget.lease("key", "workspace", ANSWERS_IN_TRANSIT);
    const page = largeAnswer(2 * MiB);
    const key = crypto.randomUUID();
    const work = counting(() => new Response(page as BodyInit, { status: 201, headers: { "content-type": "application/json" } }));
    expect(new Uint8Array(await toResponse(await idempotency.run(post(key, "{}", leaseOf()), work.run)).arrayBuffer())).toEqual(page);
    expect(budget.inUse()).toBe(0);

    const unread = [toResponse(await idempotency.run(post(key, "{}", leaseOf()), work.run)), toResponse(await idempotency.run(post(key, "{}", leaseOf()), work.run))];
    expect(budget.inUse()).toBe(4 * MiB);
    const refused = await idempotency.run(post(key, "{}", leaseOf()), work.run).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 429, code: "rate_limit_exceeded", headers: { "retry-after": "1" }, details: { reason: "answers_in_transit" } });
    expect(budget.inUse()).toBe(4 * MiB);

    // One client reads its answer, the other goes away: both give their room back.
    const chunks = await chunksOf(unread[0]!);
    expect(Math.max(...chunks.map((chunk) => chunk.byteLength))).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.concat(chunks).equals(Buffer.from(page))).toBe(true);
    await unread[1]!.body!.cancel();
    expect(budget.inUse()).toBe(0);

    const again = toResponse(await idempotency.run(post(key, "{}", leaseOf()), work.run));
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.headers.get("content-length")).toBe(String(page.byteLength));
    expect(again.headers.get("content-type")).toBe("application/json");
    expect(new Uint8Array(await again.arrayBuffer())).toEqual(page);
    expect(budget.inUse()).toBe(0);
    expect(work.calls()).toBe(1);
  });

  test("when the first answer comes while the key's share is full, then it is not refused (the work was done), and its bytes are held until it has been read", async () => {
    const idempotency = createIdempotency({ sql: database.sql, logger, upstreamTimeoutMs: 1000, databaseTimeoutMs: 2000 });
    const budget = createBodyBudget({ totalBytes: 64 * MiB, perKeyBytes: 1 * MiB });
    const other = budget.lease("key", "workspace");
    other.take(1 * MiB);
    const page = largeAnswer(2 * MiB);
    const first = toResponse(await idempotency.run(post(crypto.randomUUID(), "{}", budget.lease("key", "workspace")), () => Promise.resolve(new Response(page as BodyInit, { status: 201 }))));
    expect(first.status).toBe(201);
    expect(first.headers.get("content-length")).toBe(String(page.byteLength));
    expect(budget.inUse()).toBe(3 * MiB);
    expect(new Uint8Array(await first.arrayBuffer())).toEqual(page);
    expect(budget.inUse()).toBe(1 * MiB);
    other.release();
  });
});
