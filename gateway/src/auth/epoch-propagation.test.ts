import { describe, expect, test } from "bun:test";
import type { Logger } from "@ws/shared";
import { createMemoryEpochs, type CredentialEpochs } from "./credential-epochs";
import { createEpochPropagation } from "./epoch-propagation";

const quiet = { debug() {}, info() {}, warn() {}, error() {} } as unknown as Logger;

/** Memory epochs that note when each publish landed. */
function timedEpochs() {
  const epochs = createMemoryEpochs();
  const landedAt: number[] = [];
  const timed: CredentialEpochs = {
    incarnation: () => 0,
    current: (workspaceId) => epochs.current(workspaceId),
    async publish(workspaceId, epoch) {
      await epochs.publish(workspaceId, epoch);
      landedAt.push(performance.now());
    },
  };
  return { epochs: timed, landedAt };
}

describe("epoch propagation", () => {
  test("when replicas may trust an epoch for a while after reading it, then a change answers only that long after its epoch landed", async () => {
    const { epochs, landedAt } = timedEpochs();
    const propagation = createEpochPropagation(epochs, { logger: quiet, trustMs: 50 });
    expect(await propagation.publish("ws_1", "7")).toBe(true);
    const answeredAt = performance.now();
    expect(await epochs.current("ws_1")).toBe("7");
    expect(answeredAt - landedAt[0]!).toBeGreaterThanOrEqual(49);
    propagation.close();
  });

  test("when no replica trusts an epoch past its request, then a change answers as soon as its epoch landed", async () => {
    const { epochs, landedAt } = timedEpochs();
    const propagation = createEpochPropagation(epochs, { logger: quiet });
    expect(await propagation.publish("ws_1", "7")).toBe(true);
    expect(performance.now() - landedAt[0]!).toBeLessThan(25);
    propagation.close();
  });
});
