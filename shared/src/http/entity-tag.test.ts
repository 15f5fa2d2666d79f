import { describe, expect, test } from "bun:test";
import { acceptedVersions, entityTag, noneMatchHits } from "./entity-tag";

const ID = "01936f3e-8a4b-7c2d-9e1f-0a1b2c3d4e5f";
const AT = "2026-01-15T09:30:00.123456Z";

describe("entity tags", () => {
  test("when a version is tagged, then the tag is strong, quoted, and names the id and the microsecond", () => {
    expect(entityTag(ID, AT)).toBe(`"1768469400123456-${ID}"`);
    expect(entityTag(ID, "2026-01-15T09:30:00.123Z")).toBe(`"1768469400123000-${ID}"`);
  });

  test("when If-Match names the tag, then it accepts exactly the version it was made from", () => {
    expect(acceptedVersions(entityTag(ID, AT), ID)).toEqual([AT]);
    expect(acceptedVersions(`"x", ${entityTag(ID, AT)} , "y"`, ID)).toEqual([AT]);
    expect(acceptedVersions("*", ID)).toBe("any");
    expect(acceptedVersions(null, ID)).toBeUndefined();
  });

  test("when If-Match names a weak tag, another resource's tag or garbage, then it accepts no version", () => {
    expect(acceptedVersions(`W/${entityTag(ID, AT)}`, ID)).toEqual([]);
    expect(acceptedVersions(entityTag("01936f3e-8a4b-7c2d-9e1f-000000000000", AT), ID)).toEqual([]);
    expect(acceptedVersions("not a tag", ID)).toEqual([]);
    expect(acceptedVersions(`"999999999999999999-${ID}"`, ID)).toEqual([]);
  });

  test("when If-None-Match names the current tag, weak or strong, or *, then it hits", () => {
    const tag = entityTag(ID, AT);
    expect(noneMatchHits(tag, tag)).toBe(true);
    expect(noneMatchHits(`W/${tag}`, tag)).toBe(true);
    expect(noneMatchHits("*", tag)).toBe(true);
    expect(noneMatchHits(`"other"`, tag)).toBe(false);
    expect(noneMatchHits(undefined, tag)).toBe(false);
  });
});
