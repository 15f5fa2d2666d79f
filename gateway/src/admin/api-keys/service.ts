import { ApiError, expandPermissions, isUuid, readList, resolvePaging, seesAllTeams, uuidv7, type Scope } from "@ws/shared";
import { countApiKeys, insertApiKey, listApiKeys, revokeApiKey, type ApiKeyRow } from "../../identity/api-keys";
import { findMember } from "../../identity/members";
import { existingTeamIds } from "../../identity/teams";
import { generateKey } from "../../keys/key-format";
import { assertWorkspace, changeCredentials, type AdminDeps } from "../admin-context";
import type { CreateApiKeyBody } from "./model";

const LATEST_EXPIRY = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** How a key is shown after creation: everything but the secret. */
export function presentKey(row: ApiKeyRow) {
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    scopes: row.scopes,
    team_ids: row.team_ids,
    expires_at: row.expires_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    rate_limit_per_minute: row.rate_limit_per_minute,
    streaming: row.streaming,
  };
}

function requestedScopes(body: CreateApiKeyBody): Scope[] {
  const scopes = new Set<Scope>(body.scopes ?? []);
  const { scopes: fromPermissions } = expandPermissions(body.permissions ?? {});
  for (const scope of fromPermissions) scopes.add(scope);
  if (scopes.size === 0) throw ApiError.validation(["scopes", "permissions"], "Give the key at least one scope, through scopes or permissions.");
  return [...scopes];
}

export async function createApiKey(deps: AdminDeps, workspaceId: string, body: CreateApiKeyBody) {
  await assertWorkspace(deps.sql, workspaceId);
  const scopes = requestedScopes(body);
  const creator = await findMember(deps.sql, workspaceId, body.created_by);
  if (!creator || !creator.active) throw ApiError.validation(["created_by"], "created_by must be an active member of this workspace.");
  let teamIds: string[] | null = null;
  if (body.team_ids) {
    teamIds = [...new Set(body.team_ids)];
    const allowed = seesAllTeams(creator.role) ? await existingTeamIds(deps.sql, workspaceId, teamIds) : teamIds.filter((id) => creator.team_ids.includes(id));
    if (allowed.length !== teamIds.length) throw ApiError.validation(["team_ids"], "A key's teams must be teams of the workspace that its creator belongs to.");
  }
  let expiresAt: Date | null = null;
  if (body.expires_at) {
    expiresAt = new Date(body.expires_at);
    // An offset can carry 9999-12-31 into year 10000, which ISO 8601's four-digit years (and the database's input) cannot spell.
    if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= Date.now() || expiresAt.getTime() > LATEST_EXPIRY) {
      throw ApiError.validation(["expires_at"], "expires_at must be a date-time in the future, before the year 10000.");
    }
  }
  const generated = generateKey(deps.keyPrefix);
  const row = await insertApiKey(deps.sql, {
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
  });
  return { ...presentKey(row), key: generated.key };
}

export async function listKeys(deps: AdminDeps, workspaceId: string, query: { page?: number; per_page?: number }) {
  await assertWorkspace(deps.sql, workspaceId);
  const list = await readList(deps.sql, resolvePaging(query, "validation_error"), {
    count: (tx) => countApiKeys(tx, workspaceId),
    rows: (tx, limit, offset) => listApiKeys(tx, workspaceId, { limit, offset }),
  });
  return { ...list, data: list.data.map(presentKey) };
}

export async function revokeKey(deps: AdminDeps, workspaceId: string, keyId: string): Promise<void> {
  await assertWorkspace(deps.sql, workspaceId);
  if (!isUuid(keyId)) throw ApiError.notFound("No such API key.");
  const found = await changeCredentials(deps, workspaceId, (tx) => revokeApiKey(tx, workspaceId, keyId));
  if (!found) throw ApiError.notFound("No such API key.");
}
