import { t } from "elysia";
import { ListEnvelope, PagingQuery, STORABLE_NON_BLANK_PATTERN } from "@ws/shared";

export const CreateTeamBody = t.Object(
  { name: t.String({ minLength: 1, maxLength: 200, pattern: STORABLE_NON_BLANK_PATTERN, description: "1 to 200 characters, not only whitespace, no NUL or lone surrogate.", examples: ["Platform"] }) },
  { title: "CreateTeamBody" },
);
export type CreateTeamBody = typeof CreateTeamBody.static;

export const Team = t.Object({ id: t.String({ format: "uuid" }), name: t.String({ examples: ["Platform"] }) }, { title: "Team" });

export const TeamList = ListEnvelope(Team, "TeamList");

export const ListTeamsQuery = t.Object(PagingQuery, { title: "ListTeamsQuery" });
