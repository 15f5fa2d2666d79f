import { describe, expect, test } from "bun:test";
import { sweepWhenDoubled } from "./sweep-when-doubled";

describe("sweeping a map once it has doubled", () => {
  test("when every entry still counts, then the map is swept each time it has doubled, not on every addition", () => {
    const live = new Set<number>();
    let sweeps = 0;
    const sweep = sweepWhenDoubled(
      () => live.size,
      () => void sweeps++,
    );
    for (let i = 0; i < 20_000; i++) {
      sweep();
      live.add(i);
    }
    // At 1,024, 2,048, 4,096, 8,192 and 16,384 entries; sweeping on every addition past 1,024 made 18,976.
    expect(sweeps).toBe(5);
  });

  test("when a sweep forgets most entries, then the next sweep comes once the map has grown back past 1,024", () => {
    const live = new Set<number>();
    let sweeps = 0;
    const sweep = sweepWhenDoubled(
      () => live.size,
      () => {
        sweeps++;
        for (const entry of live) if (entry % 100 !== 0) live.delete(entry);
      },
    );
    for (let i = 0; i < 1024; i++) {
      sweep();
      live.add(i);
    }
    sweep();
    expect({ sweeps, left: live.size }).toEqual({ sweeps: 1, left: 11 });
    for (let i = 1024; i < 2037; i++) {
      sweep();
      live.add(i);
    }
    expect(sweeps).toBe(1);
    sweep();
    expect(sweeps).toBe(2);
  });
});
