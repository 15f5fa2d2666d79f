import { describe, expect, test } from "bun:test";
import { createLogger } from "@ws/shared";
import { createLateReleases } from "./late-releases";

const logger = createLogger("late-releases-test", "error");
const ref = { apiKeyId: "0190d6a0-0000-7000-8000-000000000001", key: "k" };

describe("releases of idempotency keys that did not land", () => {
  test("when a release fails, then it is tried again until it lands, and then no more", async () => {
    let calls = 0;
    const releases = createLateReleases({
      release: async () => {
        if (++calls < 3) throw new Error("database unreachable");
      },
      logger,
      timeoutMs: 100,
      giveUpMs: 60_000,
    });
    releases.add(ref, "attempt-1");
    expect(releases.size()).toBe(1);
    await Bun.sleep(1_800);
    expect(calls).toBe(3);
    expect(releases.size()).toBe(0);
  });

  test("when a release never lands, then it is given up after its time", async () => {
    let calls = 0;
    const releases = createLateReleases({
      release: async () => {
        calls++;
        throw new Error("database unreachable");
      },
      logger,
      timeoutMs: 100,
      giveUpMs: 700,
    });
    releases.add(ref, "attempt-1");
    await Bun.sleep(1_800);
    expect(releases.size()).toBe(0);
    const tried = calls;
    await Bun.sleep(700);
    expect(calls).toBe(tried);
  });
});
