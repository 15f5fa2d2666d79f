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

/** CRC-32 of the text's UTF-8 bytes; a key is ASCII, whose characters are their own bytes. */
function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return crc32OfBytes(new TextEncoder().encode(text));
    crc = CRC_TABLE[(crc ^ code) & 0xff]! ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function crc32OfBytes(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** A 32-bit value in base62, `width` characters: plain number arithmetic, since every key check computes one. */
function uint32ToBase62(value: number, width: number): string {
  let out = "";
  for (let rest = value; rest > 0; rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out;
  return out.padStart(width, "0");
}

/** The checksum of `<prefix>_<random>`, the part of a key before it. */
function checksum(keyWithoutChecksum: string): string {
  return uint32ToBase62(crc32(keyWithoutChecksum), CHECKSUM_CHARS);
}

const IS_BASE62 = /^[0-9A-Za-z]*$/;

export interface GeneratedKey {
  key: string;
  hash: Buffer;
  displayPrefix: string;
}

/** A new key `<prefix>_<random><checksum>`: returned once, stored only as its hash. */
export function generateKey(prefix: string): GeneratedKey {
  const random = toBase62(crypto.getRandomValues(new Uint8Array(RANDOM_BYTES)), RANDOM_CHARS);
  const key = `${prefix}_${random}${checksum(`${prefix}_${random}`)}`;
  return { key, hash: hashKey(key), displayPrefix: key.slice(0, prefix.length + 1 + DISPLAY_CHARS) };
}

/** How long every key with this prefix is: anything else is not one of ours. */
export function keyLength(prefix: string): number {
  return prefix.length + 1 + RANDOM_CHARS + CHECKSUM_CHARS;
}

/**
 * Whether a presented key has our shape and a matching checksum. Typos and
 * made-up keys are refused here, before any database look-up.
 */
export function isWellFormedKey(key: string, prefix: string): boolean {
  if (key.length !== keyLength(prefix) || !key.startsWith(`${prefix}_`)) return false;
  const checksumAt = key.length - CHECKSUM_CHARS;
  if (!IS_BASE62.test(key.slice(prefix.length + 1))) return false;
  return key.slice(checksumAt) === checksum(key.slice(0, checksumAt));
}

/** Keys carry 192 random bits, so a fast hash is enough: there is nothing to brute-force. */
export function hashKey(key: string): Buffer {
  return createHash("sha256").update(key).digest();
}
