import { t } from "elysia";

export const CreateWorkspaceBody = t.Object({ name: t.String({ minLength: 1, maxLength: 200, pattern: "\\S" }) });
export type CreateWorkspaceBody = typeof CreateWorkspaceBody.static;
