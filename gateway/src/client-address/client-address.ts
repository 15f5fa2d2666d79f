import { formatIp, parseIp, type FieldReader, type IpAddress } from "@ws/shared";
import type { TrustedProxies } from "./trusted-proxies";

/** Splits on `separator` outside double-quoted strings (RFC 7230 quoted-string, with backslash escapes). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted && char === "\\") {
      current += char + (text[++i] ?? "");
    } else if (char === '"') {
      quoted = !quoted;
      current += char;
    } else if (char === separator && !quoted) {
      parts.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts.map((part) => part.trim());
}

function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, "$1") : value;
}

/** A hop as proxies write it: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`, `[2001:db8::1]:4711`. */
function parseHop(hop: string): IpAddress | null {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return parseIp(bracketed[1]!);
  const withPort = /^([\d.]+):\d+$/.exec(hop);
  return parseIp(withPort ? withPort[1]! : hop);
}

/** The `for=` of every element of the Forwarded header(s) (RFC 7239), oldest hop first; null where one has none. */
function forwardedHops(value: string): (string | null)[] {
  return splitOutsideQuotes(value, ",").map((element) => {
    for (const pair of splitOutsideQuotes(element, ";")) {
      const equals = pair.indexOf("=");
      if (equals > 0 && pair.slice(0, equals).trim().toLowerCase() === "for") return unquote(pair.slice(equals + 1).trim());
    }
    return null;
  });
}

/**
 * Walks the hops from the right, past every trusted proxy: the first address
 * that is not one is the client. A hop a trusted proxy wrote but that is no
 * address (`unknown`, an obfuscated name) makes the chain unusable (null).
 * When every hop is trusted, the left-most one is where the request began.
 */
function rightmostUntrusted(hops: (string | null)[], trusted: TrustedProxies): string | null {
  let ip: IpAddress | null = null;
  for (let i = hops.length - 1; i >= 0; i--) {
    ip = hops[i] === null ? null : parseHop(hops[i]!);
    if (!ip) return null;
    if (!trusted.contains(ip)) return formatIp(ip);
  }
  return ip ? formatIp(ip) : null;
}

interface Peer {
  /** The peer as an address is written here, or as the runtime gave it when it is none. */
  address: string;
  ip: IpAddress | null;
  trusted: boolean;
}

/** Peers seen lately: a connection's every request comes from the same one, and parsing it costs more than the rest of this. */
const peers = new Map<string, Peer>();
const PEERS_REMEMBERED = 4096;
let peersTrustedBy: TrustedProxies | undefined;

function peerOf(peer: string, trusted: TrustedProxies): Peer {
  if (peersTrustedBy !== trusted) {
    peers.clear();
    peersTrustedBy = trusted;
  }
  let known = peers.get(peer);
  if (known === undefined) {
    const ip = parseIp(peer);
    known = ip ? { address: formatIp(ip), ip, trusted: trusted.contains(ip) } : { address: peer, ip: null, trusted: false };
    if (peers.size >= PEERS_REMEMBERED) peers.clear();
    peers.set(peer, known);
  }
  return known;
}

/**
 * The client address a request is limited by. The TCP peer, unless the peer is
 * a trusted proxy: then the right-most untrusted hop of X-Forwarded-For or
 * Forwarded. When both headers are sent and name different clients, one of them
 * was written by the client itself and nothing says which, so the peer is used
 * (as it is when a header is unusable): a client can never choose its address.
 */
export function resolveClientAddress(peer: string | undefined, headers: FieldReader, trusted: TrustedProxies): string {
  if (peer === undefined) return "unknown";
  const { address: fallback, ip: peerIp, trusted: peerTrusted } = peerOf(peer, trusted);
  if (!peerIp || !peerTrusted) return fallback;
  const chains: (string | null)[] = [];
  const forwarded = headers.get("forwarded");
  if (forwarded !== null) chains.push(rightmostUntrusted(forwardedHops(forwarded), trusted));
  const forwardedFor = headers.get("x-forwarded-for");
  if (forwardedFor !== null) chains.push(rightmostUntrusted(splitOutsideQuotes(forwardedFor, ",").map(unquote), trusted));
  if (chains.length === 0 || chains.some((client) => client === null || client !== chains[0])) return fallback;
  return chains[0]!;
}
