import { describe, expect, test } from "bun:test";
import { Deadline, DEADLINE_HEADER, deadlineOf, serviceBudgetMs } from "./deadline";
import { answerWithinDeadline } from "./request-deadline";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a request's deadline", () => {
  test("when the deadline passes before the commit, then the commit is refused; once the commit has begun, the deadline cannot answer any more", () => {
    const late = new Deadline(performance.now() - 1);
    expect(late.beginCommit()).toBe(false);
    const inTime = Deadline.in(1000);
    expect(inTime.beginCommit()).toBe(true);
    expect(inTime.expire()).toBe(false);
    const answered = Deadline.in(1000);
    expect(answered.expire()).toBe(true);
    expect(answered.beginCommit()).toBe(false);
  });

  test("when the gateway forwards with a timeout, then the service's budget leaves a fifth of it, at most a second, for the way back", () => {
    expect(serviceBudgetMs(10_000)).toBe(9_000);
    expect(serviceBudgetMs(1_500)).toBe(1_200);
    expect(serviceBudgetMs(50)).toBe(40);
  });

  test("when a request carries a budget, then its deadline is that far from its arrival; without one, a default applies", () => {
    const budgeted = deadlineOf(new Request("http://service/x", { headers: { [DEADLINE_HEADER]: "300" } }));
    expect(budgeted.remainingMs()).toBeGreaterThan(250);
    expect(budgeted.remainingMs()).toBeLessThanOrEqual(300);
    expect(deadlineOf(new Request("http://service/x", { headers: { [DEADLINE_HEADER]: "nonsense" } })).remainingMs()).toBeGreaterThan(1000);
  });
});

describe("answering within the deadline", () => {
  const request = (budgetMs: number) => new Request("http://service/x", { headers: { [DEADLINE_HEADER]: String(budgetMs) } });

  test("when the work is still running at the deadline and no commit began, then the answer is 503 not executed, and the work can no longer commit", async () => {
    let committed: boolean | undefined;
    const started = performance.now();
    const response = await answerWithinDeadline(request(50), async (deadline) => {
      await sleep(150);
      committed = deadline.beginCommit();
      return new Response("done");
    });
    expect(performance.now() - started).toBeLessThan(140);
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("service_unavailable");
    expect(response.headers.get("retry-after")).toBe("1");
    await sleep(150);
    expect(committed).toBe(false);
  });

  test("when the commit began before the deadline, then the work's own answer is awaited", async () => {
    const response = await answerWithinDeadline(request(50), async (deadline) => {
      expect(deadline.beginCommit()).toBe(true);
      await sleep(120);
      return new Response("committed", { status: 201 });
    });
    expect(response.status).toBe(201);
  });
});
