import { formatIp, maskIp, parseIp, samePrefix, type IpAddress } from "@ws/shared";

/** The proxies (TRUSTED_PROXIES) whose forwarding headers the gateway believes. */
export interface TrustedProxies {
  readonly ranges: readonly string[];
  contains(ip: IpAddress): boolean;
}

export class InvalidRangeError extends Error {}

interface Range {
  network: IpAddress;
  bits: number;
}

function parseRange(entry: string): Range {
  const [address, length, extra] = entry.split("/");
  const network = parseIp(address!);
  const maxBits = network?.version === 4 ? 32 : 128;
  const bits = length === undefined ? maxBits : /^\d{1,3}$/.test(length) ? Number(length) : NaN;
  if (!network || extra !== undefined || !(bits >= 0 && bits <= maxBits)) {
    throw new InvalidRangeError(`"${entry}" is not an IPv4 or IPv6 address or CIDR range (such as 10.0.0.0/8, 192.0.2.7 or fd00::/8).`);
  }
  return { network: maskIp(network, bits), bits };
}

/**
 * Parses a list of addresses and CIDR ranges separated by commas or spaces,
 * IPv4 and IPv6; an empty list trusts nobody. Throws InvalidRangeError naming
 * the first bad entry.
 */
export function parseTrustedProxies(value: string | undefined): TrustedProxies {
  const ranges = (value ?? "").split(/[\s,]+/).filter(Boolean).map(parseRange);
  return {
    ranges: ranges.map((range) => `${formatIp(range.network)}/${range.bits}`),
    contains: (ip) => ranges.some((range) => samePrefix(range.network, ip, range.bits)),
  };
}

export const NO_TRUSTED_PROXIES = parseTrustedProxies("");
