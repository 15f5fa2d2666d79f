import { describe, expect, test } from "bun:test";
import { FieldList, PlainAnswer, toResponse } from "./plain-answer";

describe("a plain answer's fields", () => {
  test("when a field is set, then every field of that name gives way to the one value, where the first was", () => {
    const fields = new FieldList([["a", "1"], ["x-request-id", "old"], ["b", "2"], ["x-request-id", "older"]]);
    fields.set("x-request-id", "new");
    fields.set("x-ratelimit-limit", "100");
    expect(fields.fields).toEqual([["a", "1"], ["x-request-id", "new"], ["b", "2"], ["x-ratelimit-limit", "100"]]);
  });

  test("when a field is repeated, then get joins its values as Headers does", () => {
    const fields = new FieldList([["vary", "Accept"], ["etag", '"1"'], ["vary", "Origin"]]);
    expect(fields.get("vary")).toBe(new Headers(fields.fields).get("vary"));
    expect(fields.get("location")).toBeNull();
  });
});

describe("a plain answer as a fetch Response", () => {
  test("when it has a body, then the Response has its status, fields, body and length", async () => {
    const body = new TextEncoder().encode('{"id":"1"}');
    const response = toResponse(new PlainAnswer(201, [["content-type", "application/json"], ["location", "/v1/new-page/1"]], body));
    expect(response.status).toBe(201);
    expect(response.headers.get("location")).toBe("/v1/new-page/1");
    expect(response.headers.get("content-length")).toBe(String(body.byteLength));
    expect(await response.text()).toBe('{"id":"1"}');
  });

  test("when its status is one that has no body, then the Response has none and no length", async () => {
    const response = toResponse(new PlainAnswer(304, [["etag", '"1"']], null));
    expect(response.status).toBe(304);
    expect(response.body).toBeNull();
    expect(response.headers.get("content-length")).toBeNull();
    expect(response.headers.get("etag")).toBe('"1"');
  });

  test("when the answer is a Response already, then it is its own Response", () => {
    const response = new Response("x");
    expect(toResponse(response)).toBe(response);
  });
});
