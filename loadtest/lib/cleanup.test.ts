import { describe, expect, test } from "bun:test";
import { cleanupNotes, deleteOutcome } from "./cleanup.js";

describe("cleanup of the provisioned workspace", () => {
  test("when the delete answers 2xx, then the workspace is gone; 404 or 405, then the server cannot delete it; anything else failed", () => {
    expect([200, 204].map(deleteOutcome)).toEqual(["deleted", "deleted"]);
    expect([404, 405].map(deleteOutcome)).toEqual(["unsupported", "unsupported"]);
    expect([0, 401, 409, 500, 503].map(deleteOutcome)).toEqual(["failed", "failed", "failed", "failed", "failed"]);
  });

  test("when the report is written, then it says what happened to the workspace, and nothing when nothing was provisioned", () => {
    const counter = (count: number) => ({ values: { count, rate: 0 } });
    expect(cleanupNotes({ cleanup_deleted: counter(1) })).toEqual(["cleanup: the provisioned workspace was deleted"]);
    expect(cleanupNotes({ cleanup_unsupported: counter(1), cleanup_failed: counter(0) })[0]).toContain("left in place");
    expect(cleanupNotes({ cleanup_failed: counter(1) })[0]).toContain("failed");
    expect(cleanupNotes({})).toEqual([]);
  });
});
