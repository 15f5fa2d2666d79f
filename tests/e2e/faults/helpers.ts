import postgres from "postgres";
import type { Call } from "../../harness/http";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request of the create-and-update workload, as the client saw it. */
export interface WriteRecord {
  kind: "create" | "update";
  worker: number;
  /** The title sent (create) or the content sent (update): unique, so the database shows whether it took effect. */
  marker: string;
  pageId?: string;
  status: number;
  startedAt: number;
  ms: number;
}

/**
 * Workers that each create pages and keep updating their own first page, one
 * request at a time, until `stop()`: every title and every content is unique,
 * so the database afterwards tells which requests took effect, and each page's
 * updates are sent in order, so the last acknowledged one must be what stays.
 */
export async function createAndUpdate(call: Call, options: { workers: number; stop: () => boolean }): Promise<WriteRecord[]> {
  const records: WriteRecord[] = [];
  const run = Math.random().toString(36).slice(2, 8);
  const worker = async (worker: number) => {
    let own: string | undefined;
    for (let n = 0; !options.stop(); n++) {
      const create = own === undefined || n % 2 === 0;
      const marker = `${run}-w${worker}-${create ? "create" : "update"}-${n}`;
      const startedAt = Date.now();
      const started = performance.now();
      const response = create
        ? await call("POST", "/v1/new-page", { title: marker, content: marker })
        : await call("PUT", `/v1/new-page/${own}`, { content: marker });
      const record: WriteRecord = { kind: create ? "create" : "update", worker, marker, status: response.status, startedAt, ms: performance.now() - started };
      if (create && response.status === 201) {
        record.pageId = response.body.id;
        own ??= response.body.id;
      }
      if (!create) record.pageId = own;
      records.push(record);
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_, i) => worker(i)));
  return records;
}

/**
 * Test instrumentation in the fault test's own database: a trigger notes the
 * content of every page row written, and the note commits or rolls back with
 * the write, so it lists exactly the writes that took effect, including those
 * a later update overwrote.
 */
export async function noteCommittedWrites(databaseUrl: string): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`
      create table if not exists committed_page_writes (content text not null);
      create or replace function note_page_write() returns trigger language plpgsql as $$
        begin insert into committed_page_writes values (new.content); return new; end $$;
      drop trigger if exists note_page_write on pages;
      create trigger note_page_write after insert or update on pages for each row execute function note_page_write();`);
  } finally {
    await sql.end();
  }
}

/**
 * What the database says about the workload's answers: a request answered with
 * a failure status (other than 502, outcome unknown) whose write took effect;
 * an acknowledged write that did not; a page whose content is not its last
 * acknowledged update (nor one of the later updates whose outcome was unknown),
 * i.e. an acknowledged update overwritten by an earlier request.
 */
export async function findBrokenPromises(databaseUrl: string, records: WriteRecord[]) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  let stored: { id: string; content: string }[];
  let written: Set<string>;
  try {
    stored = await sql<{ id: string; content: string }[]>`select id, content from pages`;
    written = new Set((await sql<{ content: string }[]>`select content from committed_page_writes`).map((row) => row.content));
  } finally {
    await sql.end();
  }
  const contentOf = new Map(stored.map((page) => [page.id, page.content]));
  const failedButTookEffect = records.filter((r) => r.status >= 400 && r.status !== 502 && written.has(r.marker));
  const acknowledgedButMissing = records.filter((r) => (r.status === 201 || r.status === 200) && !written.has(r.marker));
  const overwritten: { pageId: string; stored: string; allowed: string[] }[] = [];
  // One worker updates each page, one request at a time: the records are in the order it sent them.
  const updatesByPage = new Map<string, WriteRecord[]>();
  for (const record of records) {
    if (record.kind !== "update" || !record.pageId) continue;
    const list = updatesByPage.get(record.pageId) ?? [];
    list.push(record);
    updatesByPage.set(record.pageId, list);
  }
  for (const [pageId, updates] of updatesByPage) {
    const create = records.find((r) => r.kind === "create" && r.pageId === pageId)!;
    const lastAcknowledged = updates.findLastIndex((u) => u.status === 200);
    const allowed = [lastAcknowledged >= 0 ? updates[lastAcknowledged]!.marker : create.marker];
    for (const later of updates.slice(lastAcknowledged + 1)) if (later.status === 502) allowed.push(later.marker);
    const content = contentOf.get(pageId);
    if (content === undefined || !allowed.includes(content)) overwritten.push({ pageId, stored: String(content), allowed });
  }
  return { failedButTookEffect, acknowledgedButMissing, overwritten, writesThatTookEffect: written.size };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function countByStatus(records: { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of records) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}
