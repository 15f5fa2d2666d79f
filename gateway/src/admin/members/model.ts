import { t } from "elysia";
import { ListEnvelope, OneOf, PagingQuery, ROLES, STORABLE_TEXT_PATTERN } from "@ws/shared";

const Role = OneOf(ROLES, {
  description: "owner, admin and member may use every scope; guest only the five :read scopes. A key's scopes work only while its creator's role allows them.",
});
const TeamIds = t.Array(t.String({ format: "uuid" }), { maxItems: 1000, description: "Teams of this workspace the member belongs to." });
const Name = t.String({ maxLength: 200, pattern: STORABLE_TEXT_PATTERN, examples: ["Ada Lovelace"] });

export const CreateMemberBody = t.Object(
  {
    email: t.String({ format: "email", maxLength: 320, examples: ["ada@example.com"] }),
    name: t.Optional(t.Union([Name, t.Null()])),
    role: Role,
    team_ids: t.Optional(t.Union([TeamIds, t.Null()])),
  },
  { title: "CreateMemberBody" },
);
export type CreateMemberBody = typeof CreateMemberBody.static;

export const UpdateMemberBody = t.Object(
  {
    role: t.Optional(Role),
    active: t.Optional(t.Boolean({ description: "false deactivates the member: every key they created stops working at once." })),
    team_ids: t.Optional(TeamIds),
    name: t.Optional(t.Union([Name, t.Null()], { description: "null clears the name." })),
  },
  { title: "UpdateMemberBody", description: "At least one field; omitted fields keep their values." },
);
export type UpdateMemberBody = typeof UpdateMemberBody.static;

export const Member = t.Object(
  {
    id: t.String({ format: "uuid" }),
    email: t.String({ format: "email" }),
    name: t.Union([t.String(), t.Null()]),
    role: OneOf(ROLES),
    active: t.Boolean(),
    team_ids: t.Array(t.String({ format: "uuid" })),
  },
  { title: "Member", description: "A member of a workspace; API keys act within their creator's role." },
);

export const MemberList = ListEnvelope(Member, "MemberList");

export const ListMembersQuery = t.Object(PagingQuery, { title: "ListMembersQuery" });
