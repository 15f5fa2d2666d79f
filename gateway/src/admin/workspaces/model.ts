import { t } from "elysia";
import { ListEnvelope, PagingQuery, STORABLE_NON_BLANK_PATTERN } from "@ws/shared";

export const CreateWorkspaceBody = t.Object(
  { name: t.String({ minLength: 1, maxLength: 200, pattern: STORABLE_NON_BLANK_PATTERN, description: "1 to 200 characters, not only whitespace, no NUL or lone surrogate.", examples: ["Acme"] }) },
  { title: "CreateWorkspaceBody" },
);
export type CreateWorkspaceBody = typeof CreateWorkspaceBody.static;

export const Workspace = t.Object(
  {
    id: t.String({ format: "uuid" }),
    name: t.String({ examples: ["Acme"] }),
    created_at: t.String({ format: "date-time" }),
  },
  { title: "Workspace", description: "A workspace: the tenant that owns teams, members, keys and all their data." },
);
export type Workspace = typeof Workspace.static;

export const WorkspaceList = ListEnvelope(Workspace, "WorkspaceList");

export const ListWorkspacesQuery = t.Object(
  {
    ...PagingQuery,
    name: t.Optional(t.String({ description: "Only workspaces whose name contains this text, case-insensitive.", examples: ["k6"] })),
  },
  { title: "ListWorkspacesQuery" },
);
export type ListWorkspacesQuery = typeof ListWorkspacesQuery.static;
