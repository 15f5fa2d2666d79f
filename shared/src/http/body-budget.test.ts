import { describe, expect, test } from "bun:test";
import { ApiError } from "../errors/api-error";
import { STALLED_ANSWER_GIVES_WAY_MS, createBodyBudget, type AnswerInTransit, type BodyBudget, type BodyBudgetLimits, type BodyLease } from "./body-budget";

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

  test("when a holder's one lease takes again (a body charged chunk by chunk), then it is judged as one take: within its share and the total", () => {
    const budget = createBodyBudget(limits);
    budget.lease("b").take(40);
    const lease = budget.lease("a");
    lease.take(25);
    expect(refusal(() => lease.take(10))).toBeUndefined();
    expect(refusal(() => lease.take(20))).toMatchObject({ status: 429 });
    expect(refusal(() => budget.lease("a").take(1))).toMatchObject({ status: 429 });
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

  test("when a new key of a workspace that already holds room takes, then it must leave the kept room free too, and another workspace's newcomer still takes it", () => {
    const budget = createBodyBudget({ totalBytes: 100, perKeyBytes: 30, perGroupBytes: 60, keepFreeForNewHolders: 30 });
    budget.lease("a1", "A").take(30);
    budget.lease("b1", "B").take(30);
    expect(refusal(() => budget.lease("a2", "A").take(20))).toMatchObject({ status: 429, code: "rate_limit_exceeded" });
    expect(refusal(() => budget.lease("b2", "B").take(20))).toMatchObject({ status: 429 });
    expect(refusal(() => budget.lease("c1", "C").take(30))).toBeUndefined();
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

describe("answers whose clients take none of them, when the budget is full", () => {
  const limits = { totalBytes: 100, perKeyBytes: 60, holder: "workspace" as const, items };

  /** An answer in transit whose client last took some of it `ago` ms back (undefined: it is taking it now). */
  function answerOf(lease: BodyLease, ago: number | undefined): { cuts: number } {
    const seen = { cuts: 0 };
    const answer: AnswerInTransit = {
      stalledSince: () => (ago === undefined ? undefined : Date.now() - ago),
      cut: () => {
        seen.cuts++;
        lease.release();
      },
    };
    lease.sending(answer);
    return seen;
  }

  test("when a take does not fit the total, then the answer stalled longest past the limit is cut and the take is served", () => {
    const budget = createBodyBudget(limits);
    const [a, b] = [budget.lease("a"), budget.lease("b")];
    a.take(50);
    b.take(40);
    const older = answerOf(a, STALLED_ANSWER_GIVES_WAY_MS + 500);
    const newer = answerOf(b, STALLED_ANSWER_GIVES_WAY_MS + 100);
    expect(refusal(() => budget.lease("c").take(30))).toBeUndefined();
    expect([older.cuts, newer.cuts]).toEqual([1, 0]);
    expect(budget.inUse()).toBe(70);
  });

  test("when answers are being read, or stalled for less than the limit, then none is cut and the take is 503", () => {
    const budget = createBodyBudget(limits);
    const [a, b] = [budget.lease("a"), budget.lease("b")];
    a.take(50);
    b.take(40);
    const reading = answerOf(a, undefined);
    const brief = answerOf(b, STALLED_ANSWER_GIVES_WAY_MS / 2);
    expect(refusal(() => budget.lease("c").take(30))).toMatchObject({ status: 503 });
    expect([reading.cuts, brief.cuts]).toEqual([0, 0]);
    expect(budget.inUse()).toBe(90);
  });

  test("when a holder gave up an answer lately, then its next answer gives way once stalled past the shorter limit, while another's stalled as long stays", () => {
    const budget = createBodyBudget({ ...limits, abandonedCountsMs: 30_000, givenUpStallMs: 500 });
    const earlier = budget.lease("a");
    earlier.take(10);
    earlier.abandoned();
    earlier.release();
    const [a, b] = [budget.lease("a"), budget.lease("b")];
    a.take(45);
    b.take(45);
    const ofA = answerOf(a, 400);
    const ofB = answerOf(b, 600);
    // Neither is past its limit yet: a's 400 ms is under 500, b's 600 ms under 15 s.
    expect(refusal(() => budget.lease("c").take(30))).toMatchObject({ status: 503 });
    expect([ofA.cuts, ofB.cuts]).toEqual([0, 0]);
    const later = answerOf(a, 700);
    expect(refusal(() => budget.lease("c").take(30))).toBeUndefined();
    expect([later.cuts, ofB.cuts]).toEqual([1, 0]);
  });

  test("when one stalled answer is not enough room, then the next stalled longest is cut too", () => {
    const budget = createBodyBudget({ ...limits, perKeyBytes: 100 });
    const leases = [budget.lease("a"), budget.lease("b"), budget.lease("c")];
    for (const lease of leases) lease.take(30);
    const answers = leases.map((lease, index) => answerOf(lease, STALLED_ANSWER_GIVES_WAY_MS + 300 - 100 * index));
    expect(refusal(() => budget.lease("d").take(60))).toBeUndefined();
    expect(answers.map((answer) => answer.cuts)).toEqual([1, 1, 0]);
  });

  test("when an answer has gone out, then it is no longer one that can be cut", () => {
    const budget = createBodyBudget(limits);
    const a = budget.lease("a");
    a.take(50);
    const gone = answerOf(a, STALLED_ANSWER_GIVES_WAY_MS * 2);
    a.release();
    budget.lease("b").take(60);
    expect(refusal(() => budget.lease("c").take(50))).toMatchObject({ status: 503 });
    expect(gone.cuts).toBe(0);
  });

  test("when a holder's own share is full, then its stalled answers are not cut for it: the share's 429 stands", () => {
    const budget = createBodyBudget(limits);
    const a = budget.lease("a");
    a.take(60);
    const stalled = answerOf(a, STALLED_ANSWER_GIVES_WAY_MS * 2);
    expect(refusal(() => budget.lease("a").take(10))).toMatchObject({ status: 429 });
    expect(stalled.cuts).toBe(0);
  });
});

describe("a holder that gave up an answer before it went out whole", () => {
  const limits = { totalBytes: 100, perKeyBytes: 50, holder: "workspace" as const, items, keepFreeForNewHolders: 30, abandonedCountsMs: 1000 };

  /** "a" and "b" each hold 45; then "a"'s answer ends, given up or gone out whole. */
  function afterAnswerOfA(budget: BodyBudget, ended: "given up" | "sent"): void {
    const a = budget.lease("a");
    a.take(45);
    budget.lease("b").take(45);
    if (ended === "given up") a.abandoned();
    a.release();
  }

  test("when it asks again at once, then it counts as holding room and must leave the kept room free, while a newcomer still takes it", () => {
    const budget = createBodyBudget(limits);
    afterAnswerOfA(budget, "given up");
    // 45 + 45 would leave 10 free: a newcomer may, a holder that just gave up may not.
    expect(refusal(() => budget.lease("a").take(45))).toMatchObject({ status: 429, reason: "answers_in_transit" });
    expect(refusal(() => budget.lease("c").take(45))).toBeUndefined();
  });

  test("when the time it counts has passed, then it is a newcomer again", async () => {
    const budget = createBodyBudget({ ...limits, abandonedCountsMs: 50 });
    afterAnswerOfA(budget, "given up");
    await Bun.sleep(80);
    expect(refusal(() => budget.lease("a").take(45))).toBeUndefined();
  });

  test("when it keeps asking while refused, then it is a newcomer again once that time has passed since it gave up", async () => {
    const budget = createBodyBudget({ ...limits, abandonedCountsMs: 100 });
    afterAnswerOfA(budget, "given up");
    for (let ask = 0; ask < 2; ask++) {
      await Bun.sleep(30);
      expect(refusal(() => budget.lease("a").take(45))).toMatchObject({ status: 429 });
    }
    await Bun.sleep(70);
    expect(refusal(() => budget.lease("a").take(45))).toBeUndefined();
  });

  test("when an answer went out whole, then its holder asking again is a newcomer", () => {
    const budget = createBodyBudget(limits);
    afterAnswerOfA(budget, "sent");
    expect(refusal(() => budget.lease("a").take(45))).toBeUndefined();
  });

  test("when the budget does not count given-up answers, then a holder asking again at once is a newcomer", () => {
    const budget = createBodyBudget({ ...limits, abandonedCountsMs: undefined });
    afterAnswerOfA(budget, "given up");
    expect(refusal(() => budget.lease("a").take(45))).toBeUndefined();
  });

  test("when an answer that went out whole is told given up later, then its holder counts as holding room from the time it was given up", async () => {
    const budget = createBodyBudget({ ...limits, abandonedCountsMs: 100 });
    afterAnswerOfA(budget, "sent");
    budget.givenUp("a", Date.now() - 60);
    expect(refusal(() => budget.lease("a").take(45))).toMatchObject({ status: 429 });
    // Told of an older give-up, it keeps the newer one.
    budget.givenUp("a", Date.now() - 1000);
    await Bun.sleep(20);
    expect(refusal(() => budget.lease("a").take(45))).toMatchObject({ status: 429 });
    await Bun.sleep(40);
    expect(refusal(() => budget.lease("a").take(45))).toBeUndefined();
  });

  test("when a give-up is told longer ago than the time it counts, then its holder is a newcomer", () => {
    const budget = createBodyBudget(limits);
    afterAnswerOfA(budget, "sent");
    budget.givenUp("a", Date.now() - 1000);
    expect(refusal(() => budget.lease("a").take(45))).toBeUndefined();
  });
});

describe("the place of a holder refused for the total", () => {
  const limits = { totalBytes: 100, perKeyBytes: 60, holder: "workspace" as const, items, placeKeptMs: 1000 };
  /** A budget of 100 that a holds 60 of and b 30. */
  const heldByAAndB = (options: Partial<BodyBudgetLimits> = {}) => {
    const budget = createBodyBudget({ ...limits, ...options });
    const a = budget.lease("a");
    a.take(60);
    budget.lease("b").take(30);
    return { budget, a };
  };

  test("when a holder refused for the total comes back, then holders asking after it take room only beside what it asked for, and its next retry is served", () => {
    const budget = createBodyBudget(limits);
    const a = budget.lease("a");
    a.take(50);
    budget.lease("b").take(40);
    expect(refusal(() => budget.lease("c").take(30))).toMatchObject({ status: 503 });
    expect(refusal(() => budget.lease("c").take(30))).toMatchObject({ status: 503 });
    a.release();
    // The room a gave back: a asking again takes it only beside c's 30, and so does a newcomer.
    expect(refusal(() => budget.lease("a").take(50))).toMatchObject({ status: 503 });
    expect(refusal(() => budget.lease("d").take(40))).toMatchObject({ status: 503 });
    expect(refusal(() => budget.lease("c").take(30))).toBeUndefined();
    expect(budget.inUse()).toBe(70);
  });

  test("when two holders are refused, then the first refused is served first, and the second after it", () => {
    const { budget, a } = heldByAAndB();
    expect(refusal(() => budget.lease("c").take(40))).toMatchObject({ status: 503 });
    expect(refusal(() => budget.lease("d").take(40))).toMatchObject({ status: 503 });
    expect(refusal(() => budget.lease("c").take(40))).toMatchObject({ status: 503 });
    expect(refusal(() => budget.lease("d").take(40))).toMatchObject({ status: 503 });
    a.release();
    expect(refusal(() => budget.lease("d").take(40))).toMatchObject({ status: 503 });
    expect(refusal(() => budget.lease("c").take(40))).toBeUndefined();
    expect(refusal(() => budget.lease("d").take(30))).toBeUndefined();
  });

  test("when a refused holder has not come back, then its place holds no one back: room it never asked for again goes to whoever asks", () => {
    const { budget, a } = heldByAAndB();
    expect(refusal(() => budget.lease("c").take(40))).toMatchObject({ status: 503 });
    a.release();
    expect(refusal(() => budget.lease("a").take(60))).toBeUndefined();
  });

  test("when a refused holder sends its ask twice at once, then that is not coming back: its place holds no one back until it retries after a pause", async () => {
    const { budget, a } = heldByAAndB({ cameBackAfterMs: 40 });
    expect(refusal(() => budget.lease("c").take(40))).toMatchObject({ status: 503 });
    expect(refusal(() => budget.lease("c").take(40))).toMatchObject({ status: 503 });
    a.release();
    const again = budget.lease("a");
    expect(refusal(() => again.take(60))).toBeUndefined();
    await Bun.sleep(60);
    expect(refusal(() => budget.lease("c").take(40))).toMatchObject({ status: 503 });
    again.release();
    // c came back after a pause: the room again goes to c, not to a asking first.
    expect(refusal(() => budget.lease("a").take(60))).toMatchObject({ status: 503 });
    expect(refusal(() => budget.lease("c").take(40))).toBeUndefined();
  });

  test("when a refused holder does not come back in time, then its place is given up", async () => {
    const { budget, a } = heldByAAndB({ placeKeptMs: 50 });
    expect(refusal(() => budget.lease("c").take(40))).toMatchObject({ status: 503 });
    expect(refusal(() => budget.lease("c").take(40))).toMatchObject({ status: 503 });
    a.release();
    await Bun.sleep(80);
    expect(refusal(() => budget.lease("a").take(60))).toBeUndefined();
  });

  test("when a holder is refused for its own share, then it gets no place and holds no one back", () => {
    const budget = createBodyBudget(limits);
    budget.lease("a").take(60);
    expect(refusal(() => budget.lease("a").take(10))).toMatchObject({ status: 429 });
    expect(refusal(() => budget.lease("b").take(40))).toBeUndefined();
  });

  test("when the budget keeps no places, then whoever asks first once room frees takes it", () => {
    const { budget, a } = heldByAAndB({ placeKeptMs: undefined });
    expect(refusal(() => budget.lease("c").take(40))).toMatchObject({ status: 503 });
    a.release();
    expect(refusal(() => budget.lease("a").take(60))).toBeUndefined();
  });
});
