import { describe, expect, test } from "bun:test";
import { parseIp } from "@ws/shared";
import { InvalidRangeError, parseTrustedProxies } from "./trusted-proxies";

const contains = (list: string, address: string) => parseTrustedProxies(list).contains(parseIp(address)!);

describe("TRUSTED_PROXIES", () => {
  test("when the list is empty or blank, then no address is trusted", () => {
    expect(parseTrustedProxies(undefined).ranges).toEqual([]);
    expect(parseTrustedProxies("  ").ranges).toEqual([]);
    expect(contains("", "127.0.0.1")).toBe(false);
  });

  test("when ranges are given with commas or spaces, IPv4 and IPv6, then exactly their addresses are trusted", () => {
    const list = "10.0.0.0/8, 192.168.1.7  fd00::/8,2001:db8::1";
    expect(parseTrustedProxies(list).ranges).toEqual(["10.0.0.0/8", "192.168.1.7/32", "fd00::/8", "2001:db8::1/128"]);
    expect(contains(list, "10.255.0.1")).toBe(true);
    expect(contains(list, "11.0.0.1")).toBe(false);
    expect(contains(list, "192.168.1.7")).toBe(true);
    expect(contains(list, "192.168.1.8")).toBe(false);
    expect(contains(list, "fdab::1")).toBe(true);
    expect(contains(list, "fe00::1")).toBe(false);
    expect(contains(list, "2001:db8::1")).toBe(true);
    expect(contains(list, "2001:db8::2")).toBe(false);
  });

  test("when a range is not on a byte boundary or has host bits set, then it covers its prefix", () => {
    expect(parseTrustedProxies("172.16.5.9/12").ranges).toEqual(["172.16.0.0/12"]);
    expect(contains("172.16.0.0/12", "172.31.255.255")).toBe(true);
    expect(contains("172.16.0.0/12", "172.32.0.0")).toBe(false);
    expect(contains("0.0.0.0/0", "203.0.113.9")).toBe(true);
    expect(contains("0.0.0.0/0", "2001:db8::1")).toBe(false);
  });

  test("when an IPv4 peer arrives as an IPv4-mapped IPv6 address, then the IPv4 range still covers it", () => {
    expect(contains("127.0.0.1", "::ffff:127.0.0.1")).toBe(true);
  });

  test.each(["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/8/8", "10.0.0.0/x", "example.com", "10.0.0", "1.2.3.4-1.2.3.9"])(
    "when the list holds %p, then it is refused naming the entry",
    (entry) => {
      expect(() => parseTrustedProxies(`10.0.0.1, ${entry}`)).toThrow(InvalidRangeError);
      expect(() => parseTrustedProxies(entry)).toThrow(entry);
    },
  );
});
