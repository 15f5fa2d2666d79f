import { describe, expect, test } from "bun:test";
import { clientUnit, formatIp, parseIp } from "./ip-address";

const canonical = (text: string) => {
  const ip = parseIp(text);
  return ip ? formatIp(ip) : null;
};

describe("IP address literals", () => {
  test("when IPv4 addresses are read, then they come back as written, and out-of-range or zero-padded octets are refused", () => {
    expect(canonical("192.0.2.1")).toBe("192.0.2.1");
    expect(canonical("0.0.0.0")).toBe("0.0.0.0");
    for (const bad of ["256.1.1.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.-4", "a.b.c.d", "", " 1.2.3.4"]) expect(canonical(bad)).toBeNull();
  });

  test("when IPv6 addresses are read, then each has one spelling (RFC 5952)", () => {
    expect(canonical("2001:DB8:0:0:0:0:0:1")).toBe("2001:db8::1");
    expect(canonical("2001:db8::0001")).toBe("2001:db8::1");
    expect(canonical("::1")).toBe("::1");
    expect(canonical("::")).toBe("::");
    expect(canonical("2001:db8:0:0:1:0:0:1")).toBe("2001:db8::1:0:0:1");
    expect(canonical("2001:0:0:1:0:0:0:1")).toBe("2001:0:0:1::1");
    expect(canonical("fe80::1%eth0")).toBe("fe80::1");
    expect(canonical("64:ff9b::192.0.2.33")).toBe("64:ff9b::c000:221");
  });

  test("when an IPv4-mapped IPv6 address is read, then it is the IPv4 address", () => {
    expect(parseIp("::ffff:10.1.2.3")).toEqual({ version: 4, bytes: Uint8Array.from([10, 1, 2, 3]) });
    expect(canonical("::FFFF:7f00:1")).toBe("127.0.0.1");
  });

  test("when an IPv6 literal is malformed, then it is refused", () => {
    for (const bad of ["1::2::3", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "12345::1", "g::1", "1:2:3:4:5:6:7::8:9", ":1:2:3:4:5:6:7", "[::1]"]) {
      expect(canonical(bad)).toBeNull();
    }
  });
});

describe("the unit one client is counted in", () => {
  test("when the client is IPv4 (or IPv4-mapped), then it is the address; when IPv6, its /64; anything else, itself", () => {
    expect(clientUnit("198.51.100.1")).toBe("198.51.100.1");
    expect(clientUnit("::ffff:198.51.100.1")).toBe("198.51.100.1");
    expect(clientUnit("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientUnit("2001:db8:1:2:bbbb::9")).toBe("2001:db8:1:2::/64");
    expect(clientUnit("2001:db8:1:3::9")).toBe("2001:db8:1:3::/64");
    expect(clientUnit("unknown")).toBe("unknown");
  });
});
