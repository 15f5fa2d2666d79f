import type { Role, Scope, Sql } from "@ws/shared";

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  team_ids: string[] | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_by: string;
  created_at: Date;
  last_used_at: Date | null;
  rate_limit_per_minute: number | null;
  streaming: boolean;
  rotated_at: Date | null;
  previous_prefix: string | null;
  previous_key_expires_at: Date | null;
  /** The creating member's current role and whether they are active: what the key may do follows them. */
  creator_role: Role;
  creator_active: boolean;
}

const KEY_COLUMNS = (sql: Sql) => sql`
  id, name, display_prefix as prefix, scopes, team_ids, expires_at, revoked_at, created_by,
  created_at, last_used_at, rate_limit_per_minute, streaming,
  rotated_at, previous_display_prefix as previous_prefix, previous_key_expires_at,
  (select m.role from members m where m.id = created_by) as creator_role,
  (select m.active from members m where m.id = created_by) as creator_active`;

export async function insertApiKey(
  sql: Sql,
  key: {
    id: string;
    workspaceId: string;
    name: string;
    createdBy: string;
    hash: Buffer;
    displayPrefix: string;
    scopes: Scope[];
    teamIds: string[] | null;
    expiresAt: Date | null;
    rateLimitPerMinute: number | null;
    streaming: boolean;
  },
): Promise<ApiKeyRow> {
  const [row] = await sql<ApiKeyRow[]>`
    insert into api_keys (id, workspace_id, name, created_by, key_hash, display_prefix, scopes, team_ids,
                          expires_at, rate_limit_per_minute, streaming)
    values (${key.id}, ${key.workspaceId}, ${key.name}, ${key.createdBy}, ${key.hash}, ${key.displayPrefix},
            ${key.scopes}::text[], ${key.teamIds}::uuid[], ${key.expiresAt}, ${key.rateLimitPerMinute}, ${key.streaming})
    returning ${KEY_COLUMNS(sql)}`;
  return row!;
}

export async function listApiKeys(sql: Sql, workspaceId: string, page: { limit: number; offset: number }): Promise<ApiKeyRow[]> {
  return sql<ApiKeyRow[]>`
    select ${KEY_COLUMNS(sql)} from api_keys where workspace_id = ${workspaceId}
    order by created_at, id limit ${page.limit} offset ${page.offset}`;
}

export async function countApiKeys(sql: Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<{ total: number }[]>`select count(*)::int as total from api_keys where workspace_id = ${workspaceId}`;
  return row!.total;
}

/**
 * The key; with `lock`, locked until the transaction ends, so concurrent
 * changes of one key each see the one before.
 */
export async function findApiKey(sql: Sql, workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<ApiKeyRow | undefined> {
  const [row] = await sql<ApiKeyRow[]>`
    select ${KEY_COLUMNS(sql)} from api_keys where workspace_id = ${workspaceId} and id = ${id} ${options.lock ? sql`for update` : sql``}`;
  return row;
}

/** Sets the key's name, rate limit and expiry (each as given, null clearing it). */
export async function updateApiKey(
  sql: Sql,
  workspaceId: string,
  id: string,
  values: { name: string; rateLimitPerMinute: number | null; expiresAt: Date | null },
): Promise<ApiKeyRow | undefined> {
  const [row] = await sql<ApiKeyRow[]>`
    update api_keys set name = ${values.name}, rate_limit_per_minute = ${values.rateLimitPerMinute}, expires_at = ${values.expiresAt}
    where workspace_id = ${workspaceId} and id = ${id}
    returning ${KEY_COLUMNS(sql)}`;
  return row;
}

/**
 * Gives a key that is not revoked a new secret; the one it replaces keeps
 * working until `previousExpiresAt`. A secret still in its grace from an
 * earlier rotation is dropped.
 */
export async function rotateApiKey(
  sql: Sql,
  workspaceId: string,
  id: string,
  secret: { hash: Buffer; displayPrefix: string; previousExpiresAt: Date },
): Promise<ApiKeyRow | undefined> {
  const [row] = await sql<ApiKeyRow[]>`
    update api_keys set
      previous_key_hash = key_hash, previous_display_prefix = display_prefix, previous_key_expires_at = ${secret.previousExpiresAt},
      key_hash = ${secret.hash}, display_prefix = ${secret.displayPrefix}, rotated_at = now()
    where workspace_id = ${workspaceId} and id = ${id} and revoked_at is null
    returning ${KEY_COLUMNS(sql)}`;
  return row;
}

/** Revokes every key of the workspace that is not revoked yet. */
export async function revokeWorkspaceKeys(sql: Sql, workspaceId: string): Promise<number> {
  const result = await sql`update api_keys set revoked_at = now() where workspace_id = ${workspaceId} and revoked_at is null`;
  return result.count;
}

/** Marks the key revoked; false when no such key exists in the workspace. */
export async function revokeApiKey(sql: Sql, workspaceId: string, id: string): Promise<boolean> {
  const rows = await sql`
    update api_keys set revoked_at = coalesce(revoked_at, now())
    where workspace_id = ${workspaceId} and id = ${id} returning id`;
  return rows.length > 0;
}

/** Everything the gateway needs to authenticate a request with a key, in one round trip. */
export interface KeyCredentialRow {
  id: string;
  workspace_id: string;
  created_by: string;
  scopes: Scope[];
  team_ids: string[] | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  rate_limit_per_minute: number | null;
  role: Role;
  active: boolean;
  visible_team_ids: string[];
  auth_epoch: string;
  /** False when the presented secret is the one a rotation replaced: it works only until previous_key_expires_at. */
  current_secret: boolean;
  previous_key_expires_at: Date | null;
}

export async function findKeyCredential(sql: Sql, hash: Buffer): Promise<KeyCredentialRow | undefined> {
  const [row] = await sql<KeyCredentialRow[]>`
    select k.id, k.workspace_id, k.created_by, k.scopes, k.team_ids, k.expires_at, k.revoked_at,
           k.rate_limit_per_minute, m.role, m.active,
           case when m.role in ('owner', 'admin')
             then coalesce((select array_agg(t.id) from teams t where t.workspace_id = k.workspace_id), '{}')
             else coalesce((select array_agg(tm.team_id) from team_members tm where tm.member_id = m.id), '{}')
           end as visible_team_ids,
           w.auth_epoch::text as auth_epoch,
           k.key_hash = ${hash} as current_secret, k.previous_key_expires_at
    from api_keys k
    join members m on m.id = k.created_by
    join workspaces w on w.id = k.workspace_id
    where k.key_hash = ${hash} or k.previous_key_hash = ${hash}`;
  return row;
}

/** Coarse last-use bookkeeping: at most one write a minute per key. */
export async function touchApiKey(sql: Sql, id: string): Promise<void> {
  await sql`
    update api_keys set last_used_at = now()
    where id = ${id} and (last_used_at is null or last_used_at < now() - interval '1 minute')`;
}

/** The database's clock, which stamps `created_at`. */
export async function databaseNow(sql: Sql): Promise<Date> {
  const [row] = await sql<{ now: Date }[]>`select now() as now`;
  return row!.now;
}

/** The first 8 bytes of a key's secrets' hashes: its current one, and the one it replaced while that still works. */
export interface KeyHashPrefixes {
  prefix: Buffer;
  previous_prefix: Buffer | null;
}

/** The hash prefixes of each key not revoked, one page in id order. */
export async function keyHashPrefixesAfter(sql: Sql, afterId: string | null, limit: number): Promise<(KeyHashPrefixes & { id: string })[]> {
  return sql<(KeyHashPrefixes & { id: string })[]>`
    select id, substring(key_hash from 1 for 8) as prefix,
      case when previous_key_expires_at > now() then substring(previous_key_hash from 1 for 8) end as previous_prefix
    from api_keys
    where revoked_at is null and (${afterId}::uuid is null or id > ${afterId}::uuid)
    order by id limit ${limit}`;
}

/**
 * The same for keys created or rotated at or after a moment (a rotation gives a
 * key a new secret without a new row), each by its own index.
 */
export async function keyHashPrefixesChangedSince(sql: Sql, since: Date): Promise<KeyHashPrefixes[]> {
  return sql<KeyHashPrefixes[]>`
    select substring(key_hash from 1 for 8) as prefix, null::bytea as previous_prefix from api_keys
    where created_at >= ${since} and revoked_at is null
    union all
    select substring(key_hash from 1 for 8), substring(previous_key_hash from 1 for 8) from api_keys
    where rotated_at >= ${since} and revoked_at is null`;
}
