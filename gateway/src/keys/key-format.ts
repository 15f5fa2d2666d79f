import { createHash } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 24 random bytes: 192 bits, comfortably above the 128 the threat model needs. */
const RANDOM_BYTES = 24;
const RANDOM_CHARS = 33;
const CHECKSUM_CHARS = 6;
/** Characters of the secret shown in listings; enough to tell keys apart, far too few to guess the rest. */
const DISPLAY_CHARS = 8;

function toBase62(bytes: Uint8Array, width: number): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = "";
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(width, "0");
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text)) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function checksum(prefix: string, random: string): string {
  const value = crc32(`${prefix}_${random}`);
  return toBase62(new Uint8Array([value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff]), CHECKSUM_CHARS);
}

export interface GeneratedKey {
  key: string;
  hash: Buffer;
  displayPrefix: string;
}

/** A new key `<prefix>_<random><checksum>`: returned once, stored only as its hash. */
export function generateKey(prefix: string): GeneratedKey {
  const random = toBase62(crypto.getRandomValues(new Uint8Array(RANDOM_BYTES)), RANDOM_CHARS);
  const key = `${prefix}_${random}${checksum(prefix, random)}`;
  return { key, hash: hashKey(key), displayPrefix: key.slice(0, prefix.length + 1 + DISPLAY_CHARS) };
}

/**
 * Whether a presented key has our shape and a matching checksum. Typos and
 * made-up keys are refused here, before any database look-up.
 */
export function isWellFormedKey(key: string, prefix: string): boolean {
  if (key.length !== prefix.length + 1 + RANDOM_CHARS + CHECKSUM_CHARS || !key.startsWith(`${prefix}_`)) return false;
  const body = key.slice(prefix.length + 1);
  for (const char of body) if (!BASE62.includes(char)) return false;
  const random = body.slice(0, RANDOM_CHARS);
  return body.slice(RANDOM_CHARS) === checksum(prefix, random);
}

/** Keys carry 192 random bits, so a fast hash is enough: there is nothing to brute-force. */
export function hashKey(key: string): Buffer {
  return createHash("sha256").update(key).digest();
}
