/** An IPv4 (4 bytes) or IPv6 (16 bytes) address; IPv4-mapped IPv6 addresses are read as IPv4. */
export interface IpAddress {
  version: 4 | 6;
  bytes: Uint8Array;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

function parseIpv4(text: string): Uint8Array | null {
  const match = IPV4.exec(text);
  if (!match) return null;
  const parts = match.slice(1).map((part) => (part.length > 1 && part.startsWith("0") ? NaN : Number(part)));
  // Leading zeros are refused: some parsers read them as octal, and two readings of one address is how filters are bypassed.
  if (parts.some((part) => !(part >= 0 && part <= 255))) return null;
  return Uint8Array.from(parts);
}

function parseGroups(text: string): number[] | null {
  if (text === "") return [];
  const groups: number[] = [];
  const parts = text.split(":");
  for (const [index, part] of parts.entries()) {
    if (index === parts.length - 1 && part.includes(".")) {
      const v4 = parseIpv4(part);
      if (!v4) return null;
      groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    } else if (HEX_GROUP.test(part)) {
      groups.push(parseInt(part, 16));
    } else {
      return null;
    }
  }
  return groups;
}

function parseIpv6(text: string): Uint8Array | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = parseGroups(halves[0]!);
  const tail = halves.length === 2 ? parseGroups(halves[1]!) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<number>(missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  return bytes;
}

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** Parses an address literal (no brackets, no port); a zone (`%eth0`) is ignored. */
export function parseIp(text: string): IpAddress | null {
  const v4 = parseIpv4(text);
  if (v4) return { version: 4, bytes: v4 };
  if (!text.includes(":")) return null;
  const v6 = parseIpv6(text.replace(/%[\w.-]+$/, ""));
  if (!v6) return null;
  if (MAPPED_PREFIX.every((byte, i) => v6[i] === byte)) return { version: 4, bytes: v6.slice(12) };
  return { version: 6, bytes: v6 };
}

/** One spelling per address (RFC 5952 for IPv6), so one client is one counter. */
export function formatIp(ip: IpAddress): string {
  if (ip.version === 4) return Array.from(ip.bytes).join(".");
  const groups = Array.from({ length: 8 }, (_, i) => (ip.bytes[2 * i]! << 8) | ip.bytes[2 * i + 1]!);
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}

/** Whether the first `bits` bits of two addresses of the same version agree. */
export function samePrefix(a: IpAddress, b: IpAddress, bits: number): boolean {
  if (a.version !== b.version) return false;
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (a.bytes[i] !== b.bytes[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (a.bytes[whole]! & mask) === (b.bytes[whole]! & mask);
}

/** The address with every bit past the first `bits` cleared. */
export function maskIp(ip: IpAddress, bits: number): IpAddress {
  const bytes = ip.bytes.slice();
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    bytes[i] = bytes[i]! & (0xff << (8 - keep)) & 0xff;
  }
  return { version: ip.version, bytes };
}

/**
 * The unit one client is counted in, wherever a share is kept per client: one
 * IPv4 address, or one IPv6 /64 (what one subscriber is usually given, so
 * rotating addresses within it gains nothing). Anything else is its own unit.
 */
export function clientUnit(address: string): string {
  const ip = parseIp(address);
  if (!ip || ip.version === 4) return ip ? formatIp(ip) : address;
  return `${formatIp(maskIp(ip, 64))}/64`;
}
