import { describe, expect, test } from "bun:test";
import { generateKey, isWellFormedKey } from "./key-format";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The checksum as keys were first issued with it (BigInt base62 of the CRC-32 bytes): every key ever handed out must stay valid. */
function referenceChecksum(text: string): string {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  let value = BigInt((crc ^ 0xffffffff) >>> 0);
  let out = "";
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(6, "0");
}

describe("API key format", () => {
  test("when keys are generated, then each is well formed and carries the checksum keys were always issued with", () => {
    for (let i = 0; i < 500; i++) {
      const { key } = generateKey("wsk");
      expect(isWellFormedKey(key, "wsk")).toBe(true);
      expect(key.slice(-6)).toBe(referenceChecksum(key.slice(0, -6)));
    }
  });

  test("when one character of a key is changed, then the key is refused", () => {
    const { key } = generateKey("wsk");
    for (let at = 4; at < key.length; at++) {
      const replacement = key[at] === "a" ? "b" : "a";
      expect(isWellFormedKey(key.slice(0, at) + replacement + key.slice(at + 1), "wsk")).toBe(false);
    }
  });

  test("when a key has another prefix, length or a character outside base62, then it is refused", () => {
    const { key } = generateKey("wsk");
    expect(isWellFormedKey(key, "wsx")).toBe(false);
    expect(isWellFormedKey(key.slice(0, -1), "wsk")).toBe(false);
    expect(isWellFormedKey(`${key}0`, "wsk")).toBe(false);
    expect(isWellFormedKey(`${key.slice(0, 10)}-${key.slice(11)}`, "wsk")).toBe(false);
    expect(isWellFormedKey(`${key.slice(0, 10)}é${key.slice(11)}`, "wsk")).toBe(false);
  });
});
