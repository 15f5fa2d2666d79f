import { ApiError, expandPermissions, isUuid, readList, resolvePaging, rfc3339Instant, seesAllTeams, uuidv7, type Scope } from "@ws/shared";
import { effectiveScopes } from "../../auth/permissions";
import {
  countApiKeys,
  findApiKey,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
  updateApiKey,
  type ApiKeyRow,
} from "../../identity/api-keys";
import { findMember } from "../../identity/members";
import { existingTeamIds } from "../../identity/teams";
import { generateKey } from "../../keys/key-format";
import { applyChange, assertWorkspace, type AdminCaller, type AdminDeps } from "../admin-context";
import { MAX_ROTATION_GRACE_SECONDS, type ApiKey, type CreateApiKeyBody, type RotateApiKeyBody, type UpdateApiKeyBody } from "./model";

function keyStatus(row: ApiKeyRow, now: number): ApiKey["status"] {
  if (row.revoked_at) return "revoked";
  if (row.expires_at && row.expires_at.getTime() <= now) return "expired";
  if (!row.creator_active) return "creator_deactivated";
  return "active";
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** How a key is shown: everything but the secret, with what it may do now beside what it was granted. */
export function presentKey(row: ApiKeyRow, now = Date.now()): ApiKey {
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    scopes: row.scopes,
    effective_scopes: row.creator_active ? effectiveScopes(row.scopes, row.creator_role) : [],
    team_ids: row.team_ids,
    status: keyStatus(row, now),
    expires_at: iso(row.expires_at),
    revoked_at: iso(row.revoked_at),
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    last_used_at: iso(row.last_used_at),
    rate_limit_per_minute: row.rate_limit_per_minute,
    streaming: row.streaming,
    rotated_at: iso(row.rotated_at),
    previous_prefix: row.previous_prefix,
    previous_key_expires_at: iso(row.previous_key_expires_at),
  };
}

function notFound(): ApiError {
  return ApiError.notFound("No such API key.");
}

async function existingKey(deps: AdminDeps, workspaceId: string, keyId: string): Promise<ApiKeyRow> {
  await assertWorkspace(deps.sql, workspaceId);
  const row = isUuid(keyId) ? await findApiKey(deps.sql, workspaceId, keyId) : undefined;
  if (!row) throw notFound();
  return row;
}

function requestedScopes(body: CreateApiKeyBody): Scope[] {
  const scopes = new Set<Scope>(body.scopes ?? []);
  const { scopes: fromPermissions } = expandPermissions(body.permissions ?? {});
  for (const scope of fromPermissions) scopes.add(scope);
  if (scopes.size === 0) throw ApiError.validation(["scopes", "permissions"], "Give the key at least one scope, through scopes or permissions.", "at_least_one");
  return [...scopes];
}

const LATEST_EXPIRY = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function futureExpiry(value: string | null | undefined): Date | null {
  if (!value) return null;
  const expiresAt = rfc3339Instant(value);
  // An offset can carry 9999-12-31 into year 10000, which ISO 8601's four-digit years (and the database's input) cannot spell.
  if (expiresAt === null || expiresAt.getTime() <= Date.now()) throw ApiError.validation(["expires_at"], "expires_at must be a date-time in the future.", "future");
  if (expiresAt.getTime() > LATEST_EXPIRY) throw ApiError.validation(["expires_at"], "expires_at must be before the year 10000 in UTC.", "range");
  return expiresAt;
}

export async function createApiKey(deps: AdminDeps, caller: AdminCaller, workspaceId: string, body: CreateApiKeyBody) {
  await assertWorkspace(deps.sql, workspaceId);
  const scopes = requestedScopes(body);
  const creator = await findMember(deps.sql, workspaceId, body.created_by);
  if (!creator || !creator.active) throw ApiError.validation(["created_by"], "created_by must be an active member of this workspace.", "reference");
  let teamIds: string[] | null = null;
  if (body.team_ids) {
    teamIds = [...new Set(body.team_ids)];
    const allowed = seesAllTeams(creator.role) ? await existingTeamIds(deps.sql, workspaceId, teamIds) : teamIds.filter((id) => creator.team_ids.includes(id));
    if (allowed.length !== teamIds.length) throw ApiError.validation(["team_ids"], "A key's teams must be teams of the workspace that its creator belongs to.", "reference");
  }
  const expiresAt = futureExpiry(body.expires_at);
  const generated = generateKey(deps.keyPrefix);
  return applyChange(deps, caller, async ({ tx, audit }) => {
    const key = presentKey(
      await insertApiKey(tx, {
        id: uuidv7(),
        workspaceId,
        name: body.name.trim(),
        createdBy: creator.id,
        hash: generated.hash,
        displayPrefix: generated.displayPrefix,
        scopes,
        teamIds,
        expiresAt,
        rateLimitPerMinute: body.rate_limit_per_minute ?? null,
        streaming: body.streaming ?? false,
      }),
    );
    await audit({ workspaceId, action: "api_key.create", resourceType: "api_key", resourceId: key.id, after: key });
    return { ...key, key: generated.key };
  });
}

export async function getKey(deps: AdminDeps, workspaceId: string, keyId: string): Promise<ApiKey> {
  return presentKey(await existingKey(deps, workspaceId, keyId));
}

export async function listKeys(deps: AdminDeps, workspaceId: string, query: { page?: number; per_page?: number }) {
  await assertWorkspace(deps.sql, workspaceId);
  const list = await readList(deps.sql, resolvePaging(query, "validation_error"), {
    count: (tx) => countApiKeys(tx, workspaceId),
    rows: (tx, limit, offset) => listApiKeys(tx, workspaceId, { limit, offset }),
  });
  const now = Date.now();
  return { ...list, data: list.data.map((row) => presentKey(row, now)) };
}

/** Name, rate limit and expiry; the cached credentials at every replica are read again, so limits and expiry apply at once. */
export async function changeKey(deps: AdminDeps, caller: AdminCaller, workspaceId: string, keyId: string, body: UpdateApiKeyBody): Promise<ApiKey> {
  await existingKey(deps, workspaceId, keyId);
  if (body.name === undefined && body.rate_limit_per_minute === undefined && body.expires_at === undefined) {
    throw ApiError.validation(["name", "rate_limit_per_minute", "expires_at"], "Send at least one of name, rate_limit_per_minute or expires_at.", "at_least_one");
  }
  const expiresAt = body.expires_at === undefined ? undefined : futureExpiry(body.expires_at);
  return applyChange(
    deps,
    caller,
    async ({ tx, audit }) => {
      // Omitted fields keep what the key holds now, not what it held before a concurrent change.
      const before = await findApiKey(tx, workspaceId, keyId, { lock: true });
      if (!before) throw notFound();
      const row = await updateApiKey(tx, workspaceId, keyId, {
        name: body.name === undefined ? before.name : body.name.trim(),
        rateLimitPerMinute: body.rate_limit_per_minute === undefined ? before.rate_limit_per_minute : body.rate_limit_per_minute,
        expiresAt: expiresAt === undefined ? before.expires_at : expiresAt,
      });
      if (!row) throw notFound();
      const after = presentKey(row);
      await audit({ workspaceId, action: "api_key.update", resourceType: "api_key", resourceId: keyId, before: presentKey(before), after });
      return after;
    },
    { credentialsOf: workspaceId },
  );
}

/** When the replaced secret stops working: now plus the grace, or the time given, never more than a day away. */
function previousSecretEnd(body: RotateApiKeyBody, now: number): Date {
  if (body.grace_seconds !== undefined && body.old_key_expires_at !== undefined) {
    throw ApiError.validation(["grace_seconds", "old_key_expires_at"], "Give grace_seconds or old_key_expires_at, not both.", "one_only");
  }
  if (body.old_key_expires_at === undefined) return new Date(now + (body.grace_seconds ?? 0) * 1000);
  const end = rfc3339Instant(body.old_key_expires_at);
  if (end === null || end.getTime() < now - 1000 || end.getTime() > now + MAX_ROTATION_GRACE_SECONDS * 1000) {
    throw ApiError.invalid("validation_error", [
      {
        field: "old_key_expires_at",
        rule: "range",
        message: "old_key_expires_at must be between now and 24 hours from now",
        allowed: { min: new Date(now).toISOString(), max: new Date(now + MAX_ROTATION_GRACE_SECONDS * 1000).toISOString() },
      },
    ]);
  }
  return end;
}

/**
 * A new secret for the key. Both secrets work until the old one's end; the
 * epoch rises so that every replica reads the key again and learns that end.
 */
export async function rotateKey(deps: AdminDeps, caller: AdminCaller, workspaceId: string, keyId: string, body: RotateApiKeyBody) {
  const current = await existingKey(deps, workspaceId, keyId);
  const previousExpiresAt = previousSecretEnd(body, Date.now());
  if (current.revoked_at) {
    throw ApiError.validation(["id"], "The key is revoked and cannot be rotated; create a new key instead.", "state");
  }
  const generated = generateKey(deps.keyPrefix);
  return applyChange(
    deps,
    caller,
    async ({ tx, audit }) => {
      const before = await findApiKey(tx, workspaceId, keyId, { lock: true });
      if (!before) throw notFound();
      const row = await rotateApiKey(tx, workspaceId, keyId, { hash: generated.hash, displayPrefix: generated.displayPrefix, previousExpiresAt });
      if (!row) throw ApiError.validation(["id"], "The key is revoked and cannot be rotated; create a new key instead.", "state");
      const after = presentKey(row);
      await audit({ workspaceId, action: "api_key.rotate", resourceType: "api_key", resourceId: keyId, before: presentKey(before), after });
      return { ...after, key: generated.key };
    },
    { credentialsOf: workspaceId },
  );
}

export async function revokeKey(deps: AdminDeps, caller: AdminCaller, workspaceId: string, keyId: string): Promise<void> {
  const current = await existingKey(deps, workspaceId, keyId);
  // Revoking again answers as the first time did and changes nothing: no audit entry, no new credential epoch.
  if (current.revoked_at !== null) return;
  await applyChange(
    deps,
    caller,
    async ({ tx, audit, unchanged }) => {
      const before = await findApiKey(tx, workspaceId, keyId, { lock: true });
      if (!before) throw notFound();
      // Revoked meanwhile by a concurrent call: that one wrote the entry and moved the epoch.
      if (before.revoked_at !== null) return unchanged();
      await revokeApiKey(tx, workspaceId, keyId);
      const row = await findApiKey(tx, workspaceId, keyId);
      await audit({ workspaceId, action: "api_key.revoke", resourceType: "api_key", resourceId: keyId, before: presentKey(before), after: row ? presentKey(row) : null });
    },
    { credentialsOf: workspaceId },
  );
}
