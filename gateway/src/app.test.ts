import { describe, expect, test } from "bun:test";
import { isApiPath } from "./app";

describe("which requests go straight to the public pipeline", () => {
  test("when the path is under an operation's first segment, then it is an API path, whatever follows", () => {
    expect(isApiPath("http://gateway:8080/v1/new-page/0190")).toBe(true);
    expect(isApiPath("http://gateway:8080/v1/no-such-thing")).toBe(true);
    expect(isApiPath("http://[::1]:8080/api/calendar/events?limit=5")).toBe(true);
  });

  test("when the path is a probe, the documentation or merely starts like a prefix, then it stays with the router", () => {
    expect(isApiPath("http://gateway:8080/healthz")).toBe(false);
    expect(isApiPath("http://gateway:8080/openapi.json")).toBe(false);
    expect(isApiPath("http://gateway:8080/v1")).toBe(false);
    expect(isApiPath("http://gateway:8080/v10/new-page")).toBe(false);
    expect(isApiPath("http://gateway:8080//v1/new-page")).toBe(false);
    expect(isApiPath("http://gateway:8080")).toBe(false);
  });
});
