import { t } from "elysia";
import { ROLES, STORABLE_TEXT_PATTERN } from "@ws/shared";

const Role = t.Union(ROLES.map((role) => t.Literal(role)));
const TeamIds = t.Array(t.String({ format: "uuid" }), { maxItems: 1000 });

export const CreateMemberBody = t.Object({
  email: t.String({ format: "email", maxLength: 320 }),
  name: t.Optional(t.Union([t.String({ maxLength: 200, pattern: STORABLE_TEXT_PATTERN }), t.Null()])),
  role: Role,
  team_ids: t.Optional(t.Union([TeamIds, t.Null()])),
});
export type CreateMemberBody = typeof CreateMemberBody.static;

export const UpdateMemberBody = t.Object({
  role: t.Optional(Role),
  active: t.Optional(t.Boolean()),
  team_ids: t.Optional(TeamIds),
});
export type UpdateMemberBody = typeof UpdateMemberBody.static;
