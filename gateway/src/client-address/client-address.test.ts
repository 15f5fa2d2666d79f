import { describe, expect, test } from "bun:test";
import { resolveClientAddress } from "./client-address";
import { parseTrustedProxies } from "./trusted-proxies";

const ingress = parseTrustedProxies("10.0.0.0/8, fd00::/8");
const resolve = (peer: string | undefined, headers: Record<string, string> = {}, trusted = ingress) => resolveClientAddress(peer, new Headers(headers), trusted);

describe("the client address", () => {
  test("when the peer is not a trusted proxy, then forwarding headers change nothing", () => {
    expect(resolve("203.0.113.9", { "x-forwarded-for": "198.51.100.1" })).toBe("203.0.113.9");
    expect(resolve("203.0.113.9", { forwarded: "for=198.51.100.1" })).toBe("203.0.113.9");
    expect(resolve("10.0.0.2", { "x-forwarded-for": "198.51.100.1" }, parseTrustedProxies(""))).toBe("10.0.0.2");
  });

  test("when a trusted proxy appends to X-Forwarded-For, then the right-most address that is not a trusted proxy is the client", () => {
    expect(resolve("10.0.0.2", { "x-forwarded-for": "198.51.100.1" })).toBe("198.51.100.1");
    // The client wrote the left part itself; only what the trusted proxies appended counts.
    expect(resolve("10.0.0.2", { "x-forwarded-for": "1.1.1.1, 10.9.9.9, 198.51.100.1, 10.0.0.3" })).toBe("198.51.100.1");
    expect(resolve("10.0.0.2", { "x-forwarded-for": "garbage, 198.51.100.1" })).toBe("198.51.100.1");
    expect(resolve("10.0.0.2", { "x-forwarded-for": "198.51.100.1:5000" })).toBe("198.51.100.1");
    expect(resolve("10.0.0.2", { "x-forwarded-for": "2001:DB8::0:1" })).toBe("2001:db8::1");
    expect(resolve("10.0.0.2", { "x-forwarded-for": "[2001:db8::1]:443" })).toBe("2001:db8::1");
  });

  test("when several X-Forwarded-For lines arrive, then they read as one list in order", () => {
    const headers = new Headers();
    headers.append("x-forwarded-for", "198.51.100.1");
    headers.append("x-forwarded-for", "198.51.100.2");
    expect(resolveClientAddress("10.0.0.2", headers, ingress)).toBe("198.51.100.2");
  });

  test("when a trusted proxy writes Forwarded (RFC 7239), then its for= hops are read the same way, quoted IPv6 and ports included", () => {
    expect(resolve("10.0.0.2", { forwarded: 'for=192.0.2.60;proto=http;by=203.0.113.43, For="[2001:db8:cafe::17]:4711"' })).toBe("2001:db8:cafe::17");
    expect(resolve("10.0.0.2", { forwarded: 'for=198.51.100.7, for="10.1.1.1"' })).toBe("198.51.100.7");
    expect(resolve("10.0.0.2", { forwarded: 'proto=https;for="198.51.100.7:80"' })).toBe("198.51.100.7");
    expect(resolve("10.0.0.2", { forwarded: 'for="_gazonk;,x", for=198.51.100.8' })).toBe("198.51.100.8");
  });

  test("when the hop a trusted proxy wrote is unknown, obfuscated or missing, then the peer is the client", () => {
    expect(resolve("10.0.0.2", { forwarded: "for=unknown" })).toBe("10.0.0.2");
    expect(resolve("10.0.0.2", { forwarded: "for=_hidden" })).toBe("10.0.0.2");
    expect(resolve("10.0.0.2", { forwarded: "proto=https" })).toBe("10.0.0.2");
    expect(resolve("10.0.0.2", { "x-forwarded-for": "" })).toBe("10.0.0.2");
    expect(resolve("10.0.0.2", {})).toBe("10.0.0.2");
  });

  test("when every hop is a trusted proxy, then the left-most one is where the request began", () => {
    expect(resolve("10.0.0.2", { "x-forwarded-for": "10.0.0.7, 10.0.0.8" })).toBe("10.0.0.7");
  });

  test("when both headers are sent and name different clients, then the peer is used, and when they agree, their client", () => {
    expect(resolve("10.0.0.2", { "x-forwarded-for": "198.51.100.1", forwarded: "for=203.0.113.66" })).toBe("10.0.0.2");
    expect(resolve("10.0.0.2", { "x-forwarded-for": "198.51.100.1", forwarded: "for=198.51.100.1" })).toBe("198.51.100.1");
  });

  test("when the peer is IPv4-mapped IPv6 or unknown, then it is spelled as IPv4 or kept as given", () => {
    expect(resolve("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(resolve("::ffff:10.0.0.2", { "x-forwarded-for": "198.51.100.1" })).toBe("198.51.100.1");
    expect(resolve(undefined)).toBe("unknown");
  });

  test("when the same peer comes again under other trusted proxies, then the answer follows the proxies it comes under", () => {
    const headers = { "x-forwarded-for": "198.51.100.1" };
    expect(resolve("10.0.0.2", headers)).toBe("198.51.100.1");
    expect(resolve("10.0.0.2", headers, parseTrustedProxies(""))).toBe("10.0.0.2");
    expect(resolve("10.0.0.2", headers)).toBe("198.51.100.1");
  });
});
