import { t, type Static } from "elysia";
import { textRulePattern } from "../errors/field-errors";
import { ListEnvelope, PagingQuery } from "./list";

export const PAGE_TITLE_MAX_CODE_POINTS = 255;

/**
 * 1 to 255 Unicode code points, not only whitespace, no NUL (Postgres text
 * cannot hold one). TypeBox's maxLength counts UTF-16 units, so the length
 * lives in the pattern: a surrogate pair is one step. Without the `u` flag
 * (TypeBox) a pair matches the first branch; with it (JSON Schema tools) the
 * code point matches the second. Each position has one branch only, so a long
 * title fails fast, never backtracks. Calendar names follow the same rule.
 */
export const PAGE_TITLE_PATTERN = textRulePattern(String.raw`^(?=\s{0,254}\S)(?:[\uD800-\uDBFF][\uDC00-\uDFFF]|[^\u0000\uD800-\uDFFF]){1,255}$`, {
  minCodePoints: 1,
  maxCodePoints: PAGE_TITLE_MAX_CODE_POINTS,
  notBlank: true,
});

/** Text without NUL, which Postgres text cannot hold; a plain class scan, fast on megabytes of content. */
export const NO_NUL_PATTERN = String.raw`^[^\u0000]*$`;

const TITLE_DESCRIPTION = "1 to 255 Unicode code points; a title of only whitespace is blank and refused. Need not be unique.";

const PageTitle = t.String({
  minLength: 1,
  pattern: PAGE_TITLE_PATTERN,
  description: TITLE_DESCRIPTION,
  examples: ["Quarterly planning"],
});

const PageContent = t.String({
  pattern: NO_NUL_PATTERN,
  description: "Plain text or Markdown, without NUL. No enforced maximum length (the request body is limited to 10 MiB).",
  examples: ["# Goals\n\n- Ship the pages API"],
});

const Timestamp = (description: string) =>
  t.String({ format: "date-time", description, examples: ["2026-01-15T09:30:00.123456Z"] });

/** A page, with the team it may belong to (an extension). */
export const Page = t.Object(
  {
    id: t.String({ format: "uuid", description: "Assigned by the service on creation (UUID v7); never changes." }),
    title: t.String({ description: TITLE_DESCRIPTION, examples: ["Quarterly planning"] }),
    content: t.String({ description: "Plain text or Markdown; empty string when none was given." }),
    team_id: t.Union([t.Null(), t.String({ format: "uuid" })], {
      description: "Extension: the team the page belongs to; null for a workspace-level page.",
    }),
    created_at: Timestamp("When the page was created: ISO 8601 in UTC, microsecond precision."),
    updated_at: Timestamp("When the page was last modified; equals created_at right after creation and strictly increases on every update."),
  },
  { $id: "#/components/schemas/Page", title: "Page", description: "A page of Markdown or plain text in a workspace." },
);
export type Page = Static<typeof Page>;

/** Unknown fields are ignored. */
export const CreatePageBody = t.Object(
  {
    title: PageTitle,
    content: t.Optional(PageContent),
    team_id: t.Optional(
      t.Union([t.Null(), t.String({ format: "uuid" })], {
        description:
          "Extension: the team that owns the page. Defaults to the key's team when it targets exactly one; a key targeting several teams must name one; null or absent with a workspace-wide key makes a workspace-level page.",
      }),
    ),
  },
  {
    $id: "#/components/schemas/CreatePageBody",
    title: "CreatePageBody",
    examples: [{ title: "Quarterly planning", content: "# Goals\n\n- Ship the pages API" }],
  },
);
export type CreatePageBody = Static<typeof CreatePageBody>;

/** At least one of title and content; omitted fields keep their values. */
export const UpdatePageBody = t.Object(
  {
    title: t.Optional(PageTitle),
    content: t.Optional(
      t.String({ pattern: NO_NUL_PATTERN, description: "Replaces the content fully; an empty string clears it. Omitted: the content is kept." }),
    ),
  },
  {
    $id: "#/components/schemas/UpdatePageBody",
    title: "UpdatePageBody",
    description: "At least one of title and content must be present, otherwise 422 validation_error naming both.",
    // For the document: the service makes this check itself, to name both fields.
    anyOf: [{ required: ["title"] }, { required: ["content"] }],
    examples: [{ content: "" }, { title: "Renamed" }],
  },
);
export type UpdatePageBody = Static<typeof UpdatePageBody>;

export const PAGE_SORTS = ["updated_at", "created_at", "title"] as const;
export type PageSort = (typeof PAGE_SORTS)[number];
export const SORT_ORDERS = ["desc", "asc"] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** Out-of-range values are 422 naming the parameter; per_page above 100 is clamped. */
export const PageListQuery = t.Object({
  ...PagingQuery,
  sort: t.Optional(
    t.UnionEnum([...PAGE_SORTS], { default: "updated_at", description: "Sort key; title sorts case-insensitively. Ties are broken by id." }),
  ),
  order: t.Optional(t.UnionEnum([...SORT_ORDERS], { default: "desc" })),
  title: t.Optional(
    t.String({ description: "Case-insensitive substring filter on the title; %, _ and \\ match themselves.", examples: ["plan"] }),
  ),
});
export type PageListQuery = Static<typeof PageListQuery>;

export const PageList = { ...ListEnvelope(Page, "PageList"), $id: "#/components/schemas/PageList" };
export type PageList = Static<typeof PageList>;
