import { describe, expect, test } from "bun:test";
import type { AnswerInTransit } from "./body-budget";
import { ANSWER_SLICE_BYTES, answerReleasing, bytesReleasedWhenSent, releaseHeld, releaseWhenAnswered, releasedWhenSent } from "./answer-holds";

describe("what an answer holds until it has gone out", () => {
  test("when the answer's body is read to its end, then the release is called once, after the last byte", async () => {
    let released = 0;
    const response = releasedWhenSent(new Response("x".repeat(100_000)), { release: () => released++ });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    for (let read = first; !read.done; read = await reader.read()) expect(released).toBe(0);
    expect(released).toBe(1);
  });

  test("when the answer's body is cancelled (the client went away), then the release is called", async () => {
    let released = 0;
    const response = releasedWhenSent(new Response("x".repeat(100_000)), { release: () => released++ });
    await response.body!.cancel();
    expect(released).toBe(1);
  });

  test("when the answer has no body, then the release is called at once", () => {
    let released = 0;
    releasedWhenSent(new Response(null, { status: 204 }), { release: () => released++ });
    expect(released).toBe(1);
  });

  test("when a request holds releases, then its answer calls each once it is sent, and nothing is left to release after", async () => {
    const request = new Request("http://localhost/");
    const calls: string[] = [];
    releaseWhenAnswered(request, { release: () => calls.push("content") });
    releaseWhenAnswered(request, { release: () => calls.push("body") });
    const answer = answerReleasing(request, new Response("done", { status: 201, headers: { etag: '"v"' } }));
    expect(answer.status).toBe(201);
    expect(answer.headers.get("etag")).toBe('"v"');
    expect(calls).toEqual([]);
    expect(await answer.text()).toBe("done");
    expect(calls).toEqual(["content", "body"]);
    releaseHeld(request);
    expect(calls).toEqual(["content", "body"]);
  });

  test("when a request that holds releases is never answered, then releaseHeld calls them", () => {
    const request = new Request("http://localhost/");
    let released = 0;
    releaseWhenAnswered(request, { release: () => released++ });
    releaseHeld(request);
    expect(released).toBe(1);
    const plain = new Response("x");
    expect(answerReleasing(request, plain)).toBe(plain);
  });

  test("when a body already in memory is handed out, then it comes in slices with its Content-Length, and the release comes with the last slice taken", async () => {
    let released = 0;
    const body = Uint8Array.from({ length: 3 * ANSWER_SLICE_BYTES + 10 }, (_, index) => index & 0xff);
    const response = bytesReleasedWhenSent(body, { status: 201, headers: { etag: '"v"', "transfer-encoding": "chunked" } }, { release: () => released++ });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-length")).toBe(String(body.byteLength));
    expect(response.headers.get("transfer-encoding")).toBeNull();
    expect(response.headers.get("etag")).toBe('"v"');
    const reader = response.body!.getReader();
    const slices: Uint8Array[] = [];
    for (let slice = 0; slice < 4; slice++) {
      expect(released).toBe(0);
      const read = await reader.read();
      slices.push(read.value!);
    }
    expect(slices.map((slice) => slice.byteLength)).toEqual([ANSWER_SLICE_BYTES, ANSWER_SLICE_BYTES, ANSWER_SLICE_BYTES, 10]);
    expect(released).toBe(1);
    expect((await reader.read()).done).toBe(true);
    expect(Buffer.concat(slices).equals(Buffer.from(body))).toBe(true);
    expect(released).toBe(1);
  });

  test("when a body in memory is cancelled half-way (the client went away), then the release is called once", async () => {
    let released = 0;
    const response = bytesReleasedWhenSent(new Uint8Array(4 * ANSWER_SLICE_BYTES), { status: 200, headers: {} }, { release: () => released++ });
    const reader = response.body!.getReader();
    await reader.read();
    expect(released).toBe(0);
    await reader.cancel();
    expect(released).toBe(1);
  });

  test("when there is no body or an empty one, then the release is called at once and the length is what goes out", async () => {
    let released = 0;
    const none = bytesReleasedWhenSent(null, { status: 204, headers: { "content-length": "5" } }, { release: () => released++ });
    expect(none.body).toBeNull();
    expect(none.headers.get("content-length")).toBeNull();
    const empty = bytesReleasedWhenSent(new Uint8Array(0), { status: 200, headers: {} }, { release: () => released++ });
    expect(empty.headers.get("content-length")).toBe("0");
    expect(released).toBe(2);
    expect(await empty.text()).toBe("");
  });

  test("when the server has asked for no slice since the last one, then the answer is stalled since that slice, and no longer once it has gone out", async () => {
    let answer: AnswerInTransit | undefined;
    let released = 0;
    let abandoned = 0;
    const response = bytesReleasedWhenSent(new Uint8Array(2 * ANSWER_SLICE_BYTES), { status: 200, headers: {} }, {
      release: () => released++,
      sending: (sent) => (answer = sent),
      abandoned: () => abandoned++,
    });
    const reader = response.body!.getReader();
    const before = Date.now();
    await reader.read();
    const since = answer!.stalledSince()!;
    expect(since).toBeGreaterThanOrEqual(before);
    await Bun.sleep(30);
    expect(answer!.stalledSince()).toBe(since);
    await reader.read();
    expect(answer!.stalledSince()).toBeUndefined();
    expect(released).toBe(1);
    expect(abandoned).toBe(0);
  });

  test("when an answer is cut, then its body fails for the server, its hold is told it was abandoned and released once, and its source is cancelled", async () => {
    let answer: AnswerInTransit | undefined;
    let released = 0;
    let cancelled = false;
    let abandoned = 0;
    const source = new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(new Uint8Array(ANSWER_SLICE_BYTES)), cancel: () => void (cancelled = true) });
    const response = releasedWhenSent(new Response(source), { release: () => released++, sending: (sent) => (answer = sent), abandoned: () => abandoned++ });
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    answer!.cut();
    answer!.cut();
    expect(await reader.closed.then(() => "closed", () => "failed")).toBe("failed");
    expect(released).toBe(1);
    expect(abandoned).toBe(1);
    expect(cancelled).toBe(true);
    expect(answer!.stalledSince()).toBeUndefined();
  });

  test("when an answer's source fails after it began, then its body fails for the server with no reason, and the hold hears of the failure, is released once and not told the client gave it up", async () => {
    let released = 0;
    let abandoned = 0;
    const failures: unknown[] = [];
    let pulls = 0;
    const source = new ReadableStream<Uint8Array>({
      pull: (controller) => (pulls++ === 0 ? controller.enqueue(new Uint8Array(10)) : controller.error(new Error("connection lost"))),
    });
    const response = releasedWhenSent(new Response(source), { release: () => released++, abandoned: () => abandoned++, failed: (error) => failures.push(error) });
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    const reason = await reader.read().then(() => "read", (error: unknown) => error);
    expect(reason).toBeUndefined();
    expect(failures.map(String)).toEqual(["Error: connection lost"]);
    expect({ released, abandoned }).toEqual({ released: 1, abandoned: 0 });
  });

  test("when a request's answer is in transit, then every hold of the request is told of it", async () => {
    const request = new Request("http://localhost/");
    const told: string[] = [];
    for (const name of ["content", "body"]) releaseWhenAnswered(request, { release: () => {}, sending: () => told.push(name) });
    const answer = answerReleasing(request, new Response("x".repeat(10)));
    expect(told).toEqual(["content", "body"]);
    expect(await answer.text()).toBe("x".repeat(10));
  });
});
