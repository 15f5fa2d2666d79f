import { describe, expect, test } from "bun:test";
import { ANSWER_SLICE_BYTES, answerReleasing, bytesReleasedWhenSent, releaseHeld, releaseWhenAnswered, releasedWhenSent } from "./answer-holds";

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

  test("when a body already in memory is handed out, then it comes in slices with its Content-Length, and the release comes with the last slice taken", async () => {
    let released = 0;
    const body = Uint8Array.from({ length: 3 * ANSWER_SLICE_BYTES + 10 }, (_, index) => index & 0xff);
    const response = bytesReleasedWhenSent(body, { status: 201, headers: { etag: '"v"', "transfer-encoding": "chunked" } }, () => released++);
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
    const response = bytesReleasedWhenSent(new Uint8Array(4 * ANSWER_SLICE_BYTES), { status: 200, headers: {} }, () => released++);
    const reader = response.body!.getReader();
    await reader.read();
    expect(released).toBe(0);
    await reader.cancel();
    expect(released).toBe(1);
  });

  test("when there is no body or an empty one, then the release is called at once and the length is what goes out", async () => {
    let released = 0;
    const none = bytesReleasedWhenSent(null, { status: 204, headers: { "content-length": "5" } }, () => released++);
    expect(none.body).toBeNull();
    expect(none.headers.get("content-length")).toBeNull();
    const empty = bytesReleasedWhenSent(new Uint8Array(0), { status: 200, headers: {} }, () => released++);
    expect(empty.headers.get("content-length")).toBe("0");
    expect(released).toBe(2);
    expect(await empty.text()).toBe("");
  });
});
