import { describe, expect, test } from "bun:test";
import { readJsonObject } from "./json-body";

const post = (body: string, type = "application/json") => new Request("http://localhost/", { method: "POST", headers: { "content-type": type }, body });

describe("reading a JSON body", () => {
  test("when an object carries its own toString or valueOf, then it can still be put into a string and keeps its data", async () => {
    const body = await readJsonObject(post('{"title":{"toString":0},"nested":[{"valueOf":"x","a":1}]}'));
    expect(`${body.title}`).toBe("[object Object]");
    expect(String((body.nested as unknown[])[0])).toBe("[object Object]");
    expect(JSON.stringify(body)).toBe('{"title":{"toString":0},"nested":[{"valueOf":"x","a":1}]}');
  });

  test("when the body is not a JSON object, not JSON, or not sent as JSON, then it is 400 bad_request", async () => {
    for (const request of [post("[1]"), post("null"), post("{bad"), post('{"a":1}', "text/plain")]) {
      await expect(readJsonObject(request)).rejects.toMatchObject({ code: "bad_request", status: 400 });
    }
  });
});
