import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, openDatabase, uuidv7, type Database, type Pool } from "@ws/shared";
import { gatewayProcess } from "../definition";
import { generateKey } from "../keys/key-format";
import { createKnownKeys } from "./known-keys";

let database: Database;
let dataDir: string;
let workspaceId: string;
let memberId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "known-keys-"));
  database = await openDatabase({ dataDir, poolMax: 1 });
  await migrate(database.sql, "gateway", gatewayProcess.migrations);
  workspaceId = uuidv7();
  memberId = uuidv7();
  await database.sql`insert into workspaces (id, name) values (${workspaceId}, 'w')`;
  await database.sql`insert into members (id, workspace_id, email, role) values (${memberId}, ${workspaceId}, 'o@example.com', 'owner')`;
});

afterAll(async () => {
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function storeKey(options: { revoked?: boolean } = {}): Promise<Buffer> {
  const { hash } = generateKey("wsk");
  await database.sql`
    insert into api_keys (id, workspace_id, name, created_by, key_hash, display_prefix, scopes, revoked_at)
    values (${uuidv7()}, ${workspaceId}, 'k', ${memberId}, ${hash}, 'wsk_x', '{docs:read}', ${options.revoked ? new Date() : null})`;
  return hash;
}

const guess = () => generateKey("wsk").hash;

/** The pool, counting the statements sent through it. */
function counting(sql: Pool): { sql: Pool; statements: () => number } {
  let statements = 0;
  const wrapped = ((...args: Parameters<Pool>) => {
    statements += 1;
    return (sql as unknown as (...a: unknown[]) => unknown)(...args);
  }) as unknown as Pool;
  return { sql: wrapped, statements: () => statements };
}

describe("the hashes of existing keys", () => {
  test("when keys exist at start, then they might exist, a guess does not, and a revoked key is left out", async () => {
    const stored = await storeKey();
    const revoked = await storeKey({ revoked: true });
    const known = createKnownKeys({ sql: database.sql });
    known.start();
    expect(await known.mightExist(stored)).toBe(true);
    expect(await known.mightExist(guess())).toBe(false);
    expect(await known.mightExist(revoked)).toBe(false);
  });

  test("when a key is created after the set was loaded, then the first request for it waits for a sync and finds it", async () => {
    const known = createKnownKeys({ sql: database.sql });
    expect(await known.mightExist(guess())).toBe(false);
    const created = await storeKey();
    expect(await known.mightExist(created)).toBe(true);
  });

  test("when thousands of guesses arrive at once and in waves, then the database is asked a few times per half second, not once per guess", async () => {
    const { sql, statements } = counting(database.sql);
    const known = createKnownKeys({ sql });
    await known.mightExist(guess());
    const afterLoad = statements();
    const started = performance.now();
    for (let wave = 0; wave < 4; wave++) {
      const answers = await Promise.all(Array.from({ length: 1000 }, () => known.mightExist(guess())));
      expect(answers.every((answer) => answer === false)).toBe(true);
    }
    const seconds = (performance.now() - started) / 1000;
    // Each sync is two statements (the clock, then the new keys); at most one sync starts per 500 ms.
    const syncs = (statements() - afterLoad) / 2;
    expect(syncs).toBeGreaterThanOrEqual(1);
    expect(syncs).toBeLessThanOrEqual(Math.ceil(seconds / 0.5) + 1);
  });

  test("when more keys exist than fit one load page and the recent set is merged, then every one is still found", async () => {
    const hashes = await Promise.all(Array.from({ length: 300 }, () => storeKey()));
    const known = createKnownKeys({ sql: database.sql, loadPageSize: 64, mergeAt: 50 });
    known.start();
    for (const hash of hashes) expect(await known.mightExist(hash)).toBe(true);
    expect(known.size).toBeGreaterThanOrEqual(300);
    const later = await Promise.all(Array.from({ length: 120 }, () => storeKey()));
    for (const hash of [...later, ...hashes]) expect(await known.mightExist(hash)).toBe(true);
    expect(await known.mightExist(guess())).toBe(false);
  });
});
