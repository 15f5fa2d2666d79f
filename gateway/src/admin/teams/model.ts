import { t } from "elysia";

export const CreateTeamBody = t.Object({ name: t.String({ minLength: 1, maxLength: 200, pattern: "\\S" }) });
export type CreateTeamBody = typeof CreateTeamBody.static;
