import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { AdminApiError, type AdminClient } from "../../gateway/src/definition";
import { redactedUrl } from "./database-errors";
import { seededWorkspace, seedWorkspace } from "./seed-workspace";

interface DemoState {
  database: string;
  workspace_id: string;
  owner_id: string;
}

/**
 * Where the demo workspace of one storage backend is remembered: embedded
 * storage and each PostgreSQL database have their own file, so starting with
 * one never loses or overwrites the other's.
 */
export function demoStateFile(dataDir: string, databaseUrl: string | undefined): string {
  if (!databaseUrl) return join(dataDir, "demo", "embedded.json");
  const url = new URL(databaseUrl);
  url.password = "";
  return join(dataDir, "demo", `postgres-${createHash("sha256").update(url.toString()).digest("hex").slice(0, 16)}.json`);
}

function readState(file: string): DemoState | undefined {
  try {
    const state = JSON.parse(readFileSync(file, "utf8")) as Partial<DemoState>;
    return typeof state.workspace_id === "string" && typeof state.owner_id === "string" ? (state as DemoState) : undefined;
  } catch {
    return undefined;
  }
}

/** The database no longer holds the remembered workspace or its owner (it was reset, or the owner was deactivated). */
function isStale(error: unknown): boolean {
  return error instanceof AdminApiError && (error.status === 404 || (error.status === 422 && error.fields.includes("created_by")));
}

/**
 * A new key of the demo workspace. The workspace is made once per backend and
 * reused; when the database no longer matches what was remembered, it is made again.
 */
export async function demoKey(admin: AdminClient, stateFile: string, databaseUrl: string | undefined): Promise<{ key: string; workspaceId: string; seeded: boolean }> {
  const name = `demo key ${new Date().toISOString()}`;
  const state = readState(stateFile);
  if (state) {
    try {
      const key = await seededWorkspace(admin, state.workspace_id, state.owner_id).key({ name });
      return { key, workspaceId: state.workspace_id, seeded: false };
    } catch (error) {
      if (!isStale(error)) throw error;
    }
  }
  const workspace = await seedWorkspace(admin, { name: "Demo workspace", ownerEmail: "demo@example.com", ownerName: "Demo owner" });
  const fresh: DemoState = { database: databaseUrl ? redactedUrl(databaseUrl) : "embedded", workspace_id: workspace.workspaceId, owner_id: workspace.ownerId };
  mkdirSync(dirname(stateFile), { recursive: true });
  writeFileSync(stateFile, `${JSON.stringify(fresh, null, 2)}\n`);
  return { key: await workspace.key({ name }), workspaceId: workspace.workspaceId, seeded: true };
}
