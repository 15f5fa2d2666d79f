import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError } from "../errors/api-error";
import { Deadline } from "../http/deadline";
import { databaseFailure } from "./database-errors";
import { openDatabase, type Database } from "./database";
import { writeWithin } from "./write-within";

let dataDir: string;
let database: Database;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "write-within-"));
  // Real PostgreSQL when given (statement_timeout needs it); embedded otherwise. One connection: the temporary table is its own.
  database = await openDatabase({ url: process.env.DATABASE_URL, dataDir, poolMax: 1 });
  await database.sql`create temporary table notes (text text not null)`;
}, 60_000);
afterAll(async () => {
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
});

const stored = async (text: string) => (await database.sql`select 1 from notes where text = ${text}`).length > 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a write within the request's deadline", () => {
  test("when it finishes in time, then it commits", async () => {
    await writeWithin(database.sql, Deadline.in(5000), (tx) => tx`insert into notes values ('in time')`);
    expect(await stored("in time")).toBe(true);
  });

  test("when the deadline passes before the commit, then it rolls back and answers 503 not executed", async () => {
    const error = await writeWithin(database.sql, Deadline.in(50), async (tx) => {
      await tx`insert into notes values ('too late')`;
      await sleep(100);
    }).catch((caught) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect(await stored("too late")).toBe(false);
  });

  test("when the deadline has passed already, then it does not start", async () => {
    let ran = false;
    const error = await writeWithin(database.sql, new Deadline(performance.now() - 1), async () => {
      ran = true;
    }).catch((caught) => caught);
    expect((error as ApiError).status).toBe(503);
    expect(ran).toBe(false);
  });

  test.skipIf(!process.env.DATABASE_URL)("when a statement is still running at the deadline, then PostgreSQL cancels it and the write answers 503", async () => {
    const started = performance.now();
    const error = await writeWithin(database.sql, Deadline.in(200), async (tx) => {
      await tx`insert into notes values ('slow')`;
      await tx`select pg_sleep(5)`;
    }).catch((caught) => caught);
    expect(performance.now() - started).toBeLessThan(2000);
    expect((error as ApiError).status).toBe(503);
    expect(await stored("slow")).toBe(false);
  });

  test.skipIf(!process.env.DATABASE_URL)("when an earlier write of the request has committed and the deadline passes after it, then a later write of the same request still runs to its end", async () => {
    const deadline = Deadline.in(100);
    await writeWithin(database.sql, deadline, (tx) => tx`insert into notes values ('first step')`);
    await sleep(150);
    await writeWithin(database.sql, deadline, async (tx) => {
      await tx`select pg_sleep(0.05)`;
      await tx`insert into notes values ('second step')`;
    });
    expect(await stored("second step")).toBe(true);
  });
});

describe("database failures", () => {
  test("when the connection was never made or the server aborted the statement, then nothing ran; when it broke in flight, the outcome is unknown", () => {
    expect(databaseFailure(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe("not_executed");
    expect(databaseFailure(Object.assign(new Error("write CONNECTION_ENDED"), { code: "CONNECTION_ENDED" }))).toBe("not_executed");
    expect(databaseFailure(Object.assign(new Error("canceling statement"), { name: "PostgresError", code: "57014" }))).toBe("not_executed");
    expect(databaseFailure(Object.assign(new Error("write CONNECTION_CLOSED"), { code: "CONNECTION_CLOSED" }))).toBe("connection_lost");
    expect(databaseFailure(Object.assign(new Error("duplicate key"), { name: "PostgresError", code: "23505" }))).toBeUndefined();
    expect(databaseFailure(new Error("a bug"))).toBeUndefined();
  });
});
