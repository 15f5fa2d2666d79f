import { describe, expect, test } from "bun:test";
import { answerReleasing, releaseHeld, releaseWhenAnswered, releasedWhenSent } from "./answer-holds";

describe("what an answer holds until it has gone out", () => {
  test("when the answer's body is read to its end, then the release is called once, after the last byte", async () => {
    let released = 0;
    const response = releasedWhenSent(new Response("x".repeat(100_000)), () => released++);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    for (let read = first; !read.done; read = await reader.read()) expect(released).toBe(0);
    expect(released).toBe(1);
  });

  test("when the answer's body is cancelled (the client went away), then the release is called", async () => {
    let released = 0;
    const response = releasedWhenSent(new Response("x".repeat(100_000)), () => released++);
    await response.body!.cancel();
    expect(released).toBe(1);
  });

  test("when the answer has no body, then the release is called at once", () => {
    let released = 0;
    releasedWhenSent(new Response(null, { status: 204 }), () => released++);
    expect(released).toBe(1);
  });

  test("when a request holds releases, then its answer calls each once it is sent, and nothing is left to release after", async () => {
    const request = new Request("http://localhost/");
    const calls: string[] = [];
    releaseWhenAnswered(request, () => calls.push("content"));
    releaseWhenAnswered(request, () => calls.push("body"));
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
    releaseWhenAnswered(request, () => released++);
    releaseHeld(request);
    expect(released).toBe(1);
    const plain = new Response("x");
    expect(answerReleasing(request, plain)).toBe(plain);
  });
});
