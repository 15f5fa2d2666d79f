import { describe, expect, test } from "bun:test";
import { ApiError } from "../errors/api-error";
import { createBodyBudget } from "./body-budget";

/** The refusal `take` throws, as status, code and reason (undefined when it takes the bytes). */
function refusal(take: () => void): { status: number; code: string; reason?: unknown } | undefined {
  try {
    take();
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, code: error.code, reason: error.details?.reason };
  }
}

const items = { noun: "answers", reason: "answers_in_transit" };

describe("a body budget's room kept free for new holders", () => {
  const limits = { totalBytes: 100, perKeyBytes: 50, holder: "workspace" as const, items, keepFreeForNewHolders: 30 };

  test("when two holders within their shares would leave less than the kept room free, then the second's further take is 429 and a newcomer still takes the kept room", () => {
    const budget = createBodyBudget(limits);
    budget.lease("a").take(30);
    budget.lease("b").take(30);
    budget.lease("a").take(10);
    expect(refusal(() => budget.lease("b").take(20))).toEqual({ status: 429, code: "rate_limit_exceeded", reason: "answers_in_transit" });
    expect(refusal(() => budget.lease("c").take(30))).toBeUndefined();
    expect(budget.inUse()).toBe(100);
  });

  test("when a holder that already holds room would pass the total, then it is refused 429 (it is the one to wait), not 503", () => {
    const budget = createBodyBudget(limits);
    budget.lease("a").take(30);
    budget.lease("b").take(40);
    budget.lease("c").take(30);
    expect(refusal(() => budget.lease("a").take(5))).toMatchObject({ status: 429, reason: "answers_in_transit" });
    expect(refusal(() => budget.lease("d").take(5))).toMatchObject({ status: 503, code: "service_unavailable" });
  });

  test("when a holder's one lease takes again, then the kept room counts its first take as held", () => {
    const budget = createBodyBudget(limits);
    budget.lease("b").take(40);
    const lease = budget.lease("a");
    lease.take(25);
    expect(refusal(() => lease.take(10))).toMatchObject({ status: 429 });
  });

  test("when a holder has given back all it held, then it is a newcomer again", () => {
    const budget = createBodyBudget(limits);
    budget.lease("b").take(50);
    const first = budget.lease("a");
    first.take(10);
    expect(refusal(() => budget.lease("a").take(40))).toMatchObject({ status: 429 });
    first.release();
    expect(refusal(() => budget.lease("a").take(50))).toBeUndefined();
  });

  test("when bytes are held for work already done, then they are never refused, but a later take by the same holder counts them", () => {
    const budget = createBodyBudget(limits);
    const lease = budget.lease("a");
    lease.hold(40);
    budget.lease("b").take(35);
    expect(refusal(() => budget.lease("a").take(5))).toMatchObject({ status: 429 });
    expect(refusal(() => budget.lease("c").take(25))).toBeUndefined();
  });
});
