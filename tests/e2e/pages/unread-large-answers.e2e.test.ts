import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ANSWER_GIVEN_UP_COUNTS_MS, STALLED_ANSWER_GIVES_WAY_MS } from "@ws/shared";
import { eventually } from "../../harness/eventually";
import { apiClient, type Call } from "../../harness/http";
import { portOf, rawConnection, type RawConnection } from "../../harness/raw-http";
import { startSystem, type TestSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";
import { PAGES, createPage } from "./pages-client";

const MiB = 1024 * 1024;

/**
 * The pages service makes large answers within a budget of 32 MiB, half of it
 * at most for one workspace. Two workspaces whose clients ask for a list of
 * 15 MiB each and read none of it would hold nearly all of it for as long as
 * their connections stay open; an answer whose client has taken nothing for a
 * while gives way instead, when another workspace's answer needs its room.
 * A system of its own: the budget is the whole pages process's.
 */
let system: TestSystem;
const pagesLog: string[] = [];
beforeAll(async () => {
  system = await startSystem({ output: (name, line) => name === "pages" && pagesLog.push(line) });
});
afterAll(() => system?.stop());

/** Bytes of large contents the pages service's budget holds now, as its metrics say. */
async function largeContentsInTransit(): Promise<number> {
  const text = await (await fetch(`${system.pagesUrl}/metrics`)).text();
  const line = text.split("\n").find((candidate) => candidate.startsWith("pages_large_contents_bytes_in_transit "));
  return Number(line?.split(" ")[1]);
}

// Each test starts with the budget empty and no place in line left by the test before (a place is kept 3 s).
beforeEach(async () => {
  expect(await eventually(largeContentsInTransit, (bytes) => bytes === 0, 30_000)).toBe(0);
  await Bun.sleep(3_000);
});

async function workspaceClient(): Promise<{ key: string; call: Call }> {
  const key = await (await seedTenant(system)).key();
  return { key, call: apiClient(system.baseUrl, key) };
}

const open: RawConnection[] = [];

/** Asks for a list on a raw connection whose client then reads nothing of it. */
async function askAndReadNothing(key: string): Promise<RawConnection> {
  const connection = rawConnection(portOf(system.baseUrl));
  open.push(connection);
  connection.socket.pause();
  await connection.write(`GET ${PAGES}?per_page=2 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  return connection;
}

/**
 * Runs `body` while each key asks for its list, reads nothing and gives up
 * `periodMs` later to ask again, the second key 0.4 s after the first.
 */
async function whileRenewingUnread(keys: [string, string], periodMs: number, body: () => Promise<void>): Promise<void> {
  let attacking = true;
  const renew = async (key: string, offsetMs: number) => {
    await Bun.sleep(offsetMs);
    while (attacking) {
      const connection = await askAndReadNothing(key);
      await Bun.sleep(periodMs);
      connection.close();
    }
  };
  const attackers = [renew(keys[0], 0), renew(keys[1], 400)];
  try {
    await body();
  } finally {
    attacking = false;
    await Promise.all(attackers);
    while (open.length) open.pop()!.close();
  }
}

/** Two workspaces with a 15 MiB list each, and a third with an 8 MiB page. */
async function twoListsAndAPage() {
  const [a, b, c] = [await workspaceClient(), await workspaceClient(), await workspaceClient()];
  const half = "x".repeat(7.5 * MiB);
  for (const { call } of [a, b]) for (const title of ["one", "two"]) await createPage(call, { title, content: half });
  const page = await createPage(c.call, { title: "eight", content: "y".repeat(8 * MiB) });
  return { a, b, c, half, page };
}

/**
 * A client that retries what it is told to retry (503 with Retry-After: 1) reading
 * its 8 MiB page `reads` times, each up to `attempts` asks: the statuses of each read.
 */
async function readRetryingAsTold(call: Call, pageId: string, reads: number, attempts: number): Promise<number[][]> {
  const all: number[][] = [];
  for (let read = 0; read < reads; read++) {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < attempts; attempt++) {
      const answer = await call("GET", `${PAGES}/${pageId}`);
      statuses.push(answer.status);
      if (answer.status === 200) {
        expect(answer.body.content.length).toBe(8 * MiB);
        break;
      }
      expect(answer.status).toBe(503);
      expect(answer.headers.get("retry-after")).toBe("1");
      await Bun.sleep(1000);
    }
    all.push(statuses);
  }
  return all;
}

describe("large answers whose clients read none of them", () => {
  test("when two workspaces' 15 MiB lists go unread, then a third workspace's 8 MiB page is still served, and each unread answer is either cut or whole", async () => {
    const { a, b, c, half, page } = await twoListsAndAPage();
    try {
      const unread = [await askAndReadNothing(a.key), await askAndReadNothing(b.key)];
      // Both lists are being answered, holding their room, before the third workspace asks.
      expect(await eventually(largeContentsInTransit, (bytes) => bytes >= 30 * MiB, 20_000)).toBeGreaterThanOrEqual(30 * MiB);
      const read = await eventually(
        () => c.call("GET", `${PAGES}/${page.id}`),
        (answer) => answer.status === 200,
        // Unread answers give way once stalled for 15 s (body-budget.ts); before that the budget is in use.
        STALLED_ANSWER_GIVES_WAY_MS + 15_000,
      );
      expect(read.status).toBe(200);
      expect(read.body.content.length).toBe(8 * MiB);
      // Reading at last, each unread list's client gets either its whole answer (it went out meanwhile)
      // or a connection cut before the answer's end (it gave way): never a cut answer ended as whole.
      for (const connection of unread) {
        connection.socket.resume();
        const [answer] = await connection.responses(1, 10_000);
        if (answer === undefined) {
          await connection.closed;
          continue;
        }
        expect(answer.status).toBe(200);
        expect(answer.body.data.map((listed: { content: string }) => listed.content.length)).toEqual([half.length, half.length]);
      }
      // A cut is the process's own choice: no stack trace of it in the log.
      expect(pagesLog.filter((line) => /^\s+at /.test(line))).toEqual([]);
    } finally {
      while (open.length) open.pop()!.close();
    }
  }, 90_000);

  test("when two workspaces give up their unread 15 MiB lists and ask again every 0.8 s, then a third workspace retrying after Retry-After still reads its 8 MiB page", async () => {
    const { a, b, c, page } = await twoListsAndAPage();
    await whileRenewingUnread([a.key, b.key], 800, async () => {
      await Bun.sleep(1000);
      const reads = await readRetryingAsTold(c.call, page.id, 4, 4);
      console.log(`third workspace's reads, by attempt: ${JSON.stringify(reads)}`);
      expect(reads.map((statuses) => statuses.at(-1))).toEqual([200, 200, 200, 200]);
    });
  }, 90_000);

  test("when a workspace asks HEAD of its 8 MiB page, then that is not an answer given up: its next read is served while another workspace holds 15 MiB", async () => {
    const { a, c, page } = await twoListsAndAPage();
    try {
      await askAndReadNothing(a.key);
      await Bun.sleep(500);
      // A mark for giving up would make c leave 10 MiB free: 15 + 8 would not.
      const head = await fetch(`${system.baseUrl}${PAGES}/${page.id}`, { method: "HEAD", headers: { authorization: `Bearer ${c.key}` } });
      expect(head.status).toBe(200);
      await Bun.sleep(200);
      const read = await c.call("GET", `${PAGES}/${page.id}`);
      expect(read.status).toBe(200);
      expect(read.body.content.length).toBe(8 * MiB);
    } finally {
      while (open.length) open.pop()!.close();
    }
  }, 90_000);

  test("when two workspaces read 15 MiB lists steadily and ask for another every 0.1 s, then a third workspace retrying after Retry-After still reads its 8 MiB page, each time", async () => {
    const { a, b, c, page } = await twoListsAndAPage();
    let polling = true;
    const served = { a: 0, b: 0 };
    const reads: Promise<void>[] = [];
    /** Reads an answer's body at about 4 MB/s, so that it is held for seconds. */
    const readSteadily = async (answer: Response) => {
      const started = performance.now();
      const reader = answer.body!.getReader();
      let bytes = 0;
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        bytes += chunk.value.byteLength;
        const ahead = bytes / 4_000 - (performance.now() - started);
        if (ahead > 0) await Bun.sleep(ahead);
      }
    };
    // Each asks for its list every 0.1 s, whether or not its last answer is still being read: the moment
    // that answer's bytes have left the service, its next ask is a newcomer's.
    const poll = async (key: string, name: "a" | "b") => {
      while (polling) {
        const asked = fetch(`${system.baseUrl}${PAGES}?per_page=2`, { headers: { authorization: `Bearer ${key}` } }).then(async (answer) => {
          if (answer.status !== 200) return void (await answer.arrayBuffer());
          served[name]++;
          await readSteadily(answer);
        });
        reads.push(asked);
        await Bun.sleep(100);
      }
    };
    const pollers = [poll(a.key, "a"), Bun.sleep(2000).then(() => poll(b.key, "b"))];
    try {
      await Bun.sleep(3000);
      const attempts = await readRetryingAsTold(c.call, page.id, 3, 12);
      console.log(`third workspace's reads, by attempt: ${JSON.stringify(attempts)}; lists served meanwhile: ${JSON.stringify(served)}`);
      expect(attempts.map((statuses) => statuses.at(-1))).toEqual(Array(3).fill(200));
      expect(served.a + served.b).toBeGreaterThan(2);
    } finally {
      polling = false;
      await Promise.all(pollers);
      await Promise.allSettled(reads);
    }
  }, 180_000);

  test("when two workspaces renew their unread 15 MiB lists every 7 s, before they could be cut, then once each has renewed a third workspace's 8 MiB page is served at its first or second ask, every time, also once their marks for answers given up have ended", async () => {
    const { a, b, c, page } = await twoListsAndAPage();
    await whileRenewingUnread([a.key, b.key], 7000, async () => {
      // Until their first renewals (7 s, later on a loaded machine) both lists are young answers in the budget:
      // the third workspace waits, by design. From its first read on, each read is served at its first or second
      // ask (a renewing workspace refused once, not asking again for 7 s, keeps no place in line ahead of it).
      await Bun.sleep(7000);
      await eventually(() => c.call("GET", `${PAGES}/${page.id}`), (answer) => answer.status === 200, 20_000);
      // The renewers' first answers were given up at about 7 s; a mark ends 30 s later, while its workspace is
      // refused, and that workspace then takes room as a newcomer at its next renewal: the reads go on past it.
      const reads: number[][] = [];
      const until = Date.now() + ANSWER_GIVEN_UP_COUNTS_MS + 20_000;
      while (Date.now() < until) reads.push(...(await readRetryingAsTold(c.call, page.id, 1, 2)));
      console.log(`third workspace's ${reads.length} reads; those not served at the first ask: ${JSON.stringify(reads.filter((statuses) => statuses.length > 1))}`);
      expect(reads.filter((statuses) => statuses.at(-1) !== 200)).toEqual([]);
    });
  }, 150_000);
});
