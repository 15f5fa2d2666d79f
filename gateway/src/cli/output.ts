import { ROLES, SCOPES } from "@ws/shared";
import { AdminApiError } from "./admin-client";
import { permissionLevelsText, UsageError } from "./command";

const text = (value: unknown): string => {
  if (value === null || value === undefined) return "-";
  if (Array.isArray(value)) return value.length ? value.map(text).join(", ") : "-";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
};

/** An object as aligned "field  value" lines; undefined fields are left out. */
export function fieldLines(record: Record<string, unknown>): string {
  const entries = Object.entries(record).filter(([, value]) => value !== undefined);
  const width = Math.max(0, ...entries.map(([name]) => name.length));
  return entries.map(([name, value]) => `${name.padEnd(width)}  ${text(value)}`).join("\n");
}

/** A list envelope as a table of the given columns, and where in the list it is. */
export function table(list: { data: object[]; total: number; page: number; per_page: number }, columns: string[]): string {
  const rows = list.data.map((item) => columns.map((column) => text((item as Record<string, unknown>)[column])));
  const widths = columns.map((column, i) => Math.max(column.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd();
  const pages = Math.max(1, Math.ceil(list.total / list.per_page));
  return [line(columns), ...rows.map(line), "", `${list.total} in all; page ${list.page} of ${pages}.`].join("\n");
}

/** What a field the API refused may hold, from the same lists the API validates with. */
const FIELD_HINTS: Record<string, () => string> = {
  permissions: () => `permission levels are ${permissionLevelsText().join("; ")}`,
  scopes: () => `scopes are ${SCOPES.join(", ")}`,
  role: () => `roles are ${ROLES.join(", ")}`,
  expires_at: () => "expires_at must be a date-time in the future with a time zone, e.g. 2030-01-31T18:00:00Z",
  rate_limit_per_minute: () => "the rate limit is a whole number from 1 to 1000000",
  created_by: () => "created_by must be the id of an active member of the workspace",
  team_ids: () => "teams must be team ids of the workspace that the key's creator belongs to",
};

function apiErrorLine(error: AdminApiError, adminUrl: string): string {
  if (error.status === 401) return `The management API at ${adminUrl} refused ADMIN_TOKEN (401 ${error.code}): use the token the gateway was started with (npm start prints it).`;
  const allowed = error.details.fields;
  const hints = error.fields.flatMap((field) => (FIELD_HINTS[field] ? [FIELD_HINTS[field]!()] : []));
  // Field details that already say what is allowed are shown as they are.
  const described = Array.isArray(allowed)
    ? allowed.flatMap((field) => (typeof field === "object" && field && "allowed" in field ? [`${(field as { field: string }).field}: ${text((field as { allowed: unknown }).allowed)}`] : []))
    : [];
  const extra = [...described, ...(described.length ? [] : hints)];
  return `${error.apiMessage.replace(/\.?$/, ".")}${extra.length ? ` ${extra.join("; ")}.` : ""} (${error.status} ${error.code})`;
}

/** Any failure of a CLI run as one readable line, without a stack trace. */
export function failureLine(error: unknown, adminUrl: string): string {
  if (error instanceof UsageError) return error.message;
  if (error instanceof AdminApiError) return apiErrorLine(error, adminUrl);
  const cause = (error as { cause?: { code?: string } })?.cause?.code ?? (error as { code?: string })?.code;
  if (cause === "ECONNREFUSED" || cause === "ConnectionRefused" || (error instanceof TypeError && /fetch|connect/i.test(error.message))) {
    return `Cannot reach the management API at ${adminUrl}: is the gateway running (npm start)? Set ADMIN_URL if it listens elsewhere.`;
  }
  return error instanceof Error ? error.message.split("\n")[0]! : String(error);
}
