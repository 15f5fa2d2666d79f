import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, test } from "bun:test";
import { freePortBlock, portIsFree } from "./ports";

const ephemeralStart = (() => {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  } catch {
    return 32_768;
  }
})();

describe("free port blocks", () => {
  test("when blocks are chosen, then each lies below the ports the kernel gives outgoing connections, so none of those can take it", async () => {
    for (let i = 0; i < 50; i++) {
      const base = await freePortBlock(3);
      expect(base).toBeGreaterThanOrEqual(20_000);
      if (ephemeralStart - 20_000 >= 2_000) expect(base + 3).toBeLessThanOrEqual(ephemeralStart);
    }
  });

  test("when a process listens on a port, then the port is not free, and it is again once the process stops", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen({ port: 0, host: "0.0.0.0" }, resolve));
    const port = (server.address() as { port: number }).port;
    expect(await portIsFree(port)).toBe(false);
    await new Promise((resolve) => server.close(resolve));
    expect(await portIsFree(port)).toBe(true);
  });
});
