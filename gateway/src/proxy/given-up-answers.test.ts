import { describe, expect, test } from "bun:test";
import { GivenUpAnswers } from "./given-up-answers";

describe("answers given up, by workspace", () => {
  test("when a workspace's client gave up an answer, then how long ago is told until the time it counts has passed, and no other workspace is told anything", async () => {
    const givenUp = new GivenUpAnswers(60);
    expect(givenUp.msAgo("ws-a")).toBeUndefined();
    givenUp.mark("ws-a");
    await Bun.sleep(20);
    expect(givenUp.msAgo("ws-a")).toBeGreaterThanOrEqual(15);
    expect(givenUp.msAgo("ws-b")).toBeUndefined();
    await Bun.sleep(50);
    expect(givenUp.msAgo("ws-a")).toBeUndefined();
  });

  test("when it gives up another, then the time counts from the newer one", async () => {
    const givenUp = new GivenUpAnswers(60);
    givenUp.mark("ws-a");
    await Bun.sleep(40);
    givenUp.mark("ws-a");
    await Bun.sleep(40);
    expect(givenUp.msAgo("ws-a")).toBeLessThan(60);
  });

  test("when more workspaces give answers up than it remembers, then the oldest marks go first", () => {
    const givenUp = new GivenUpAnswers(60_000);
    givenUp.mark("first");
    givenUp.mark("second");
    for (let workspace = 0; workspace < 10_000; workspace++) givenUp.mark(`ws-${workspace}`);
    expect(givenUp.msAgo("first")).toBeUndefined();
    expect(givenUp.msAgo("second")).toBeUndefined();
    expect(givenUp.msAgo("ws-0")).toBeDefined();
    expect(givenUp.msAgo("ws-9999")).toBeDefined();
  });
});
