import { describe, expect, test } from "bun:test";
import { UnfinishedHeads, type HeadHolder } from "./unfinished-heads";

function holder(client: string, name: string, refused: string[]): HeadHolder {
  return { client, refuseIncompleteHead: () => refused.push(name) };
}

describe("the room for incomplete request heads", () => {
  test("when one address passes its quarter of the room, then its own oldest heads give way and other addresses' heads keep theirs", () => {
    const refused: string[] = [];
    const heads = new UnfinishedHeads(4000);
    const other = holder("10.0.0.2", "other", refused);
    expect(heads.hold(other, 500)).toBe(true);
    const flood = [1, 2, 3, 4].map((i) => holder("10.0.0.1", `flood${i}`, refused));
    for (const head of flood) expect(heads.hold(head, 400)).toBe(true);
    expect(refused).toEqual(["flood1", "flood2"]);
    // The other address's head is older than all of them, and still held: it ends normally.
    expect(heads.hold(other, 0)).toBe(true);
    expect(refused).not.toContain("other");
  });

  test("when the whole room is full, then the oldest head of any address gives way to a newer one", () => {
    const refused: string[] = [];
    const heads = new UnfinishedHeads(4000);
    const holders = ["a", "b", "c", "d"].map((name, i) => holder(`10.0.0.${i + 1}`, name, refused));
    for (const head of holders) expect(heads.hold(head, 1000)).toBe(true);
    const late = holder("10.0.0.9", "late", refused);
    expect(heads.hold(late, 1000)).toBe(true);
    expect(refused).toEqual(["a"]);
  });

  test("when the head that needs more room is itself the oldest, then it is the one refused (false) and the others keep theirs", () => {
    const refused: string[] = [];
    const heads = new UnfinishedHeads(4000);
    const oldest = holder("10.0.0.1", "oldest", refused);
    const newer = holder("10.0.0.1", "newer", refused);
    expect(heads.hold(oldest, 500)).toBe(true);
    expect(heads.hold(newer, 400)).toBe(true);
    expect(heads.hold(oldest, 700)).toBe(false);
    expect(refused).toEqual([]);
  });

  test("when heads end, then their room is free again for their address and in all", () => {
    const refused: string[] = [];
    const heads = new UnfinishedHeads(4000);
    for (let round = 0; round < 5; round++) {
      const head = holder("10.0.0.1", `head${round}`, refused);
      expect(heads.hold(head, 1000)).toBe(true);
      expect(heads.hold(head, 0)).toBe(true);
    }
    expect(refused).toEqual([]);
  });
});
