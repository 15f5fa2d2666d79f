import { ApiError } from "../errors/api-error";

/**
 * Strong entity tags of single resources, and the conditional request headers
 * that name them (RFC 9110 section 13). A tag is the resource's id and the
 * microsecond of its last change, `"<microseconds since 1970>-<id>"`: every
 * update moves `updated_at` strictly forward, so a tag names one version, and a
 * tag can be turned back into the `updated_at` it names, which lets a
 * conditional write check the version in its own UPDATE or DELETE statement.
 */

const MICROSECOND_INSTANT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/;
const TAG = /^(\d{1,17})-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
/** One member of an `If-Match` / `If-None-Match` list (etagc excludes the quote, so a tag never holds one). */
const LIST_MEMBER = /[\s,]*(W\/)?"([^"]*)"\s*(?:,|$)/y;

function microseconds(instant: string): bigint {
  const match = MICROSECOND_INSTANT.exec(instant);
  if (!match) throw new Error(`Not a UTC instant with up to microsecond precision: ${instant}`);
  const seconds = BigInt(Date.parse(`${match[1]}Z`) / 1000);
  return seconds * 1_000_000n + BigInt((match[2] ?? "").padEnd(6, "0"));
}

/** The instant with six fractional digits: Postgres reads it back to the exact microsecond. */
function instantOf(micros: bigint): string {
  const seconds = micros / 1_000_000n;
  const fraction = (micros % 1_000_000n).toString().padStart(6, "0");
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

/** The strong entity tag of one version of a resource, quotes included. */
export function entityTag(id: string, updatedAt: string): string {
  return `"${microseconds(updatedAt)}-${id.toLowerCase()}"`;
}

/** The tags of a list header, or null when it is `*`; a member that does not parse is dropped (it cannot match). */
function parseTagList(header: string): { weak: boolean; opaque: string }[] | null {
  if (header.trim() === "*") return null;
  const tags: { weak: boolean; opaque: string }[] = [];
  LIST_MEMBER.lastIndex = 0;
  while (LIST_MEMBER.lastIndex < header.length) {
    const start = LIST_MEMBER.lastIndex;
    const match = LIST_MEMBER.exec(header);
    if (!match || LIST_MEMBER.lastIndex === start) break;
    tags.push({ weak: match[1] !== undefined, opaque: match[2]! });
  }
  return tags;
}

/**
 * What `If-Match` asks of the resource with this id: undefined when there is no
 * condition, "any" for `*` (the resource must exist), otherwise the versions
 * (`updated_at` instants) it accepts. Only strong tags of this very id count
 * (If-Match compares strongly), so a list of foreign or weak tags accepts no
 * version at all, and the write answers 412.
 */
export function acceptedVersions(ifMatch: string | null | undefined, id: string): "any" | string[] | undefined {
  if (ifMatch === null || ifMatch === undefined) return undefined;
  const tags = parseTagList(ifMatch);
  if (tags === null) return "any";
  const versions: string[] = [];
  for (const tag of tags) {
    const match = TAG.exec(tag.opaque);
    if (tag.weak || !match || match[2] !== id.toLowerCase()) continue;
    const micros = BigInt(match[1]!);
    // Beyond year 9999 no stored version can match; leave it out rather than build an instant Postgres refuses.
    if (micros < 253_402_300_800_000_000n) versions.push(instantOf(micros));
  }
  return versions;
}

/** Whether `If-None-Match` names the current tag (weak comparison, as RFC 9110 asks for GET and HEAD). */
export function noneMatchHits(ifNoneMatch: string | null | undefined, currentTag: string): boolean {
  if (ifNoneMatch === null || ifNoneMatch === undefined) return false;
  const tags = parseTagList(ifNoneMatch);
  if (tags === null) return true;
  const current = currentTag.slice(1, -1);
  return tags.some((tag) => tag.opaque === current);
}

/** The 412 of a conditional write whose `If-Match` names no current version. */
export function preconditionFailed(what: string): ApiError {
  return new ApiError("precondition_failed", `${what} has changed since the version If-Match names (or If-Match names none of it): read it again, then retry.`);
}

/**
 * The versions a conditional write must find, for a resource its caller has
 * already found (and locked): undefined when any will do (no If-Match, or `*`).
 */
export function requiredVersions(ifMatch: string | null | undefined, id: string): string[] | undefined {
  const versions = acceptedVersions(ifMatch, id);
  return versions === "any" ? undefined : versions;
}
