import { t } from "elysia";
import { ListEnvelope, OneOf, PagingQuery } from "@ws/shared";

const Snapshot = (description: string) => t.Union([t.Record(t.String(), t.Unknown()), t.Null()], { description });

export const AuditEntry = t.Object(
  {
    id: t.String({ format: "uuid" }),
    workspace_id: t.String({ format: "uuid" }),
    action: t.String({
      description:
        "What was done: workspace.create, workspace.delete, team.create, member.add, member.update, api_key.create, api_key.update, api_key.rotate, api_key.revoke.",
      examples: ["api_key.rotate"],
    }),
    resource_type: OneOf(["workspace", "team", "member", "api_key"]),
    resource_id: t.String({ format: "uuid" }),
    before: Snapshot("The resource before the change, without secrets; null for a creation."),
    after: Snapshot("The resource after the change, without secrets; for a workspace's deletion, what went with it (keys revoked, rows deleted per service)."),
    request_id: t.String({ description: "The X-Request-Id of the management call that made the change." }),
    actor: t.String({
      description: "Which admin credential made the change: `admin-token:` and the first 12 hex digits of its SHA-256, never the token.",
      examples: ["admin-token:3f9a1c2b7d4e"],
    }),
    created_at: t.String({ format: "date-time" }),
  },
  { title: "AuditEntry", description: "One management change, recorded in the transaction that made it." },
);

export const AuditLog = ListEnvelope(AuditEntry, "AuditLog");

export const AuditLogQuery = t.Object(PagingQuery, { title: "AuditLogQuery" });
