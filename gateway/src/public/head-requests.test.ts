import { describe, expect, test } from "bun:test";
import { HEAD_READS_AT_MOST_BYTES, answeringHead } from "./head-requests";

const CHUNK_BYTES = 1024 * 1024;

/** A GET answer of `chunks` MiB, saying how much of it was read and whether it was cancelled. */
function answerOf(chunks: number) {
  const seen = { pulled: 0, cancelled: false, ended: false };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (seen.pulled === chunks) {
          seen.ended = true;
          return controller.close();
        }
        seen.pulled++;
        controller.enqueue(new Uint8Array(CHUNK_BYTES));
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { seen, response: new Response(body, { status: 200, headers: { "content-type": "application/json", "x-seen": "get" } }) };
}

async function until(condition: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !condition(); tries++) await Bun.sleep(5);
}

describe("HEAD answered as the GET it stands for", () => {
  test("when HEAD is asked, then the GET's status and headers come back with no body, and the GET was what ran", async () => {
    const { response } = answerOf(1);
    const methods: string[] = [];
    const handle = answeringHead(async (request) => {
      methods.push(request.method);
      return response;
    });
    const answer = await handle(new Request("http://gateway/v1/new-page", { method: "HEAD" }));
    expect(methods).toEqual(["GET"]);
    expect((answer as Response).status).toBe(200);
    expect((answer as Response).headers.get("x-seen")).toBe("get");
    expect((answer as Response).body).toBeNull();
  });

  test("when the GET's body is an answer made whole (8 MiB), then it is read to its end, not cancelled (a cancelled answer counts as one given up)", async () => {
    const { seen, response } = answerOf(8);
    await answeringHead(async () => response)(new Request("http://gateway/v1/new-page", { method: "HEAD" }));
    await until(() => seen.ended || seen.cancelled);
    expect(seen).toEqual({ pulled: 8, cancelled: false, ended: true });
  });

  test("when the GET's body is a streamed list past what any whole answer holds, then reading stops there and the rest is cancelled, never read", async () => {
    const { seen, response } = answerOf(1024);
    await answeringHead(async () => response)(new Request("http://gateway/v1/new-page", { method: "HEAD" }));
    await until(() => seen.ended || seen.cancelled);
    expect(seen.cancelled).toBe(true);
    expect(seen.ended).toBe(false);
    expect(seen.pulled).toBeLessThanOrEqual(HEAD_READS_AT_MOST_BYTES / CHUNK_BYTES + 2);
  });

  test("when the request is not HEAD, then it goes through as it is, body and all", async () => {
    const { seen, response } = answerOf(2);
    const answer = (await answeringHead(async () => response)(new Request("http://gateway/v1/new-page"))) as Response;
    expect((await answer.arrayBuffer()).byteLength).toBe(2 * CHUNK_BYTES);
    expect(seen.ended).toBe(true);
  });
});
