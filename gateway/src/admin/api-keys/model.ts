import { t } from "elysia";
import { DATE_TIME_PATTERN, PagingQuery, PERMISSION_LEVELS, SCOPES, STORABLE_NON_BLANK_PATTERN } from "@ws/shared";

const Scope = t.Union(SCOPES.map((scope) => t.Literal(scope)));

/** Spec 5.2 levels per resource, e.g. {"calendar": "write", "docs": "full", "workflows": "run"}. */
const Permissions = t.Object(
  Object.fromEntries(
    Object.entries(PERMISSION_LEVELS).map(([resource, levels]) => [resource, t.Optional(t.Union(Object.keys(levels).map((level) => t.Literal(level))))]),
  ),
  { additionalProperties: false },
);

export const CreateApiKeyBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 100, pattern: STORABLE_NON_BLANK_PATTERN }),
  created_by: t.String({ format: "uuid" }),
  scopes: t.Optional(t.Array(Scope, { maxItems: SCOPES.length * 4 })),
  permissions: t.Optional(Permissions),
  team_ids: t.Optional(t.Union([t.Array(t.String({ format: "uuid" }), { minItems: 1, maxItems: 1000 }), t.Null()])),
  expires_at: t.Optional(t.Union([t.String({ format: "date-time", pattern: DATE_TIME_PATTERN }), t.Null()])),
  rate_limit_per_minute: t.Optional(t.Union([t.Integer({ minimum: 1, maximum: 1_000_000 }), t.Null()])),
  streaming: t.Optional(t.Boolean()),
});
export type CreateApiKeyBody = typeof CreateApiKeyBody.static;

export const ListApiKeysQuery = t.Object(PagingQuery);
