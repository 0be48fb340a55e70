// The SSRF address rules, as pure functions: which addresses an outbound fetch may reach, which
// URLs it may follow, and which hosts an operator allow-listed (IMAGE_FETCH_ALLOW_HOSTS,
// WEBHOOK_ALLOW_HOSTS, OUTBOUND_ALLOW_HOSTS: config.ts).
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IPv6 text written in hex groups only. ipaddr.js reads a dotted tail after `::` as IPv4-mapped
 * ("::127.0.0.1" becomes ::ffff:127.0.0.1, another address); the URL parser writes the address
 * as it is ("::7f00:1"), and as checkUrl and DNS answers present it.
 */
const inHexGroups = (ipv6: string) => new URL(`http://[${ipv6}]/`).hostname.slice(1, -1);

/**
 * The IPv4-compatible range ::/96 (::a.b.c.d, RFC 4291 §2.5.5.1, deprecated): some stacks still
 * route ::127.0.0.1 to the IPv4 loopback, and ipaddr.js calls ::7f00:1 "unicast".
 */
const isIPv4Compatible = (address: ipaddr.IPv6) => address.parts.slice(0, 6).every((part) => part === 0);

/**
 * True only for a public unicast address. Loopback, private (RFC 1918), carrier-grade NAT,
 * link-local (169.254/16, the cloud metadata address), unique-local, multicast, broadcast,
 * unspecified, documentation/benchmark/reserved ranges are refused, and so are, whole, the IPv6
 * ranges that embed an IPv4 address on their way to it: IPv4-compatible (::/96), NAT64
 * (64:ff9b::/96, 64:ff9b:1::/48), IPv4-translated (::ffff:0:0:0/96), 6to4 (2002::/16) and Teredo
 * (2001::/32) — a gateway of these may deliver to a private IPv4 address, and an image host has a
 * native address anyway. An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as the IPv4 it
 * maps. Anything that does not parse as an address is refused.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // Only canonical forms: dns.lookup and the URL parser produce them; `ipaddr.parse` would also
  // accept "2130706433" or "0x7f.1", which must never reach this point as an address.
  const family = bare.includes('%') ? 0 : net.isIP(bare);
  if (family === 0) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(family === 6 ? inHexGroups(bare) : bare);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6') {
    const ipv6 = parsed as ipaddr.IPv6;
    if (ipv6.isIPv4MappedAddress()) parsed = ipv6.toIPv4Address();
    else if (isIPv4Compatible(ipv6)) return false;
  }
  return parsed.range() === 'unicast';
}

/** True when the text is an IP address literal (IPv4 dotted quad, or IPv6 with or without brackets). */
export function isIpLiteral(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return net.isIP(bare) !== 0;
}

/** An allow-list entry matches a URL's host by `host` (any port) or `host:port`. */
export function hostAllowed(allowHosts: readonly string[], hostname: string, port: string | number): boolean {
  if (allowHosts.length === 0) return false;
  const host = hostname.toLowerCase();
  const withPort = `${host}:${port}`;
  return allowHosts.some((entry) => entry === host || entry === withPort);
}

export const defaultPort = (protocol: string) => (protocol === 'https:' ? 443 : 80);

export type UrlRefusal = 'INVALID_URL' | 'SCHEME_NOT_ALLOWED' | 'CREDENTIALS_NOT_ALLOWED' | 'ADDRESS_NOT_ALLOWED';

/**
 * What can be said of a URL before any DNS lookup: it must parse, be http or https, carry no
 * credentials, and, when its host is an address literal (including the decimal, octal and hex
 * forms the URL parser normalises to dotted quads), be a public one or an allow-listed host.
 */
export function checkUrl(
  raw: string,
  allowHosts: readonly string[],
): { ok: true; url: URL } | { ok: false; refusal: UrlRefusal } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, refusal: 'INVALID_URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, refusal: 'SCHEME_NOT_ALLOWED' };
  if (url.username !== '' || url.password !== '') return { ok: false, refusal: 'CREDENTIALS_NOT_ALLOWED' };
  if (url.hostname === '') return { ok: false, refusal: 'INVALID_URL' };
  const port = url.port || defaultPort(url.protocol);
  if (isIpLiteral(url.hostname) && !isPublicAddress(url.hostname) && !hostAllowed(allowHosts, url.hostname, port)) {
    return { ok: false, refusal: 'ADDRESS_NOT_ALLOWED' };
  }
  return { ok: true, url };
}
