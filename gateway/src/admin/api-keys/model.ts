import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import { closedObject, DATE_TIME_PATTERN, ListEnvelope, OneOf, PagingQuery, PERMISSION_LEVELS, SCOPES, STORABLE_NON_BLANK_PATTERN } from "@ws/shared";

const Scope = OneOf(SCOPES);
const Scopes = (description: string) => t.Array(Scope, { description });

/** Permission levels per resource, e.g. {"calendar": "write", "docs": "full", "workflows": "run"}. */
const Permissions = closedObject(
  Object.fromEntries(
    Object.entries(PERMISSION_LEVELS).map(([resource, levels]) => [resource, t.Optional(OneOf(Object.keys(levels) as [string, ...string[]]))]),
  ),
  { description: "Permission levels per resource, expanded to scopes: lists/docs/calendar none|read|write|full, workflows/agents none|read|run." },
);

const DateTimeInput = (description: string) => t.String({ format: "date-time", pattern: DATE_TIME_PATTERN, description, examples: ["2027-01-01T00:00:00Z"] });
// TypeBox's integer, not Elysia's: that one also takes "5" and turns it into 5, and a body is checked as sent.
const RateLimit = Type.Integer({ minimum: 1, maximum: 1_000_000, description: "Requests a minute for this key; null uses the gateway's default." });
const Name = t.String({ minLength: 1, maxLength: 100, pattern: STORABLE_NON_BLANK_PATTERN, description: "1 to 100 characters, not only whitespace, no NUL or lone surrogate: what the key is for.", examples: ["ci deploy (prod)"] });

export const CreateApiKeyBody = t.Object(
  {
    name: Name,
    created_by: t.String({ format: "uuid", description: "The member creating the key: an active member of the workspace; the key acts within their role." }),
    scopes: t.Optional(t.Array(Scope, { maxItems: SCOPES.length * 4 })),
    permissions: t.Optional(Permissions),
    team_ids: t.Optional(
      t.Union([t.Array(t.String({ format: "uuid" }), { minItems: 1, maxItems: 1000 }), t.Null()], {
        description: "Teams the key targets; absent or null: the whole workspace. Each must be a team its creator belongs to (owners and admins: any team).",
      }),
    ),
    expires_at: t.Optional(t.Union([DateTimeInput("When the key stops working; in the future. Null or absent: never."), t.Null()])),
    rate_limit_per_minute: t.Optional(t.Union([RateLimit, t.Null()])),
    streaming: t.Optional(t.Boolean()),
  },
  { title: "CreateApiKeyBody", description: "Give at least one scope, through scopes, permissions or both." },
);
export type CreateApiKeyBody = typeof CreateApiKeyBody.static;

export const UpdateApiKeyBody = t.Object(
  {
    name: t.Optional(Name),
    rate_limit_per_minute: t.Optional(t.Union([RateLimit, t.Null()], { description: "null returns the key to the gateway's default." })),
    expires_at: t.Optional(t.Union([DateTimeInput("A time in the future."), t.Null()], { description: "null: the key never expires." })),
  },
  { title: "UpdateApiKeyBody", description: "At least one field; omitted fields keep their values. Changes apply at every replica on the next request." },
);
export type UpdateApiKeyBody = typeof UpdateApiKeyBody.static;

/** At most a day: long enough to roll a secret out everywhere, short enough that a leaked one dies soon. */
export const MAX_ROTATION_GRACE_SECONDS = 86_400;

export const RotateApiKeyBody = t.Object(
  {
    grace_seconds: t.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_ROTATION_GRACE_SECONDS, description: "How long the old secret keeps working, 0 to 86400 seconds.", examples: [3600] }),
    ),
    old_key_expires_at: t.Optional(DateTimeInput("When the old secret stops working: not in the past, at most 24 hours from now.")),
  },
  {
    title: "RotateApiKeyBody",
    description: "Give grace_seconds or old_key_expires_at, not both; with neither, the old secret stops working at once.",
  },
);
export type RotateApiKeyBody = typeof RotateApiKeyBody.static;

const NullableDateTime = (description: string) => t.Union([t.String({ format: "date-time" }), t.Null()], { description });

export const KEY_STATUSES = ["active", "revoked", "expired", "creator_deactivated"] as const;

const API_KEY_FIELDS = {
  id: t.String({ format: "uuid" }),
  prefix: t.String({ description: "The start of the current secret, to tell keys apart; never enough to use it.", examples: ["wsk_3kTz9QmB"] }),
  name: t.String(),
  scopes: Scopes("The scopes granted to the key."),
  effective_scopes: Scopes(
    "What the key may do now: its scopes within its creator's current role (empty while the creator is deactivated). A scope granted but not effective answers 403 forbidden.",
  ),
  team_ids: t.Union([t.Array(t.String({ format: "uuid" })), t.Null()], { description: "The teams the key targets; null for the whole workspace." }),
  status: OneOf(KEY_STATUSES, { description: "active, or why the key does not work." }),
  expires_at: NullableDateTime("When the key stops working; null: never."),
  revoked_at: NullableDateTime("When the key was revoked; null: not revoked."),
  created_by: t.String({ format: "uuid" }),
  created_at: t.String({ format: "date-time" }),
  last_used_at: NullableDateTime("Roughly when the key was last used (kept to the minute)."),
  rate_limit_per_minute: t.Union([t.Integer(), t.Null()], { description: "null: the gateway's default." }),
  streaming: t.Boolean(),
  rotated_at: NullableDateTime("When the key was last rotated."),
  previous_prefix: t.Union([t.String(), t.Null()], { description: "The start of the secret the last rotation replaced." }),
  previous_key_expires_at: NullableDateTime("Until when the replaced secret works (it answers 401 after); null when never rotated."),
};

export const ApiKey = t.Object(API_KEY_FIELDS, { title: "ApiKey", description: "An API key, without its secret." });
export type ApiKey = typeof ApiKey.static;

export const CreatedApiKey = t.Object(
  { ...API_KEY_FIELDS, key: t.String({ description: "The full secret: shown in this answer only, never again.", examples: ["wsk_3kTz9QmB..."] }) },
  { title: "ApiKeyWithSecret", description: "An API key with its new secret, as creation and rotation answer." },
);

export const ApiKeyList = ListEnvelope(ApiKey, "ApiKeyList");

export const ListApiKeysQuery = t.Object(PagingQuery, { title: "ListApiKeysQuery" });
