// The SSRF address rules, as pure functions: which addresses an outbound fetch may reach, which
// URLs it may follow, and which hosts an operator allow-listed (IMAGE_FETCH_ALLOW_HOSTS).
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * True only for a public unicast address. Loopback, private (RFC 1918), carrier-grade NAT,
 * link-local (169.254/16, the cloud metadata address), unique-local, multicast, broadcast,
 * unspecified, documentation/benchmark/reserved ranges, and IPv6 forms that embed an IPv4 address
 * (6to4, Teredo, NAT64) are refused; an IPv4-mapped IPv6 address is judged as the IPv4 it maps.
 * Anything that does not parse as an address is refused.
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // Only canonical forms: dns.lookup and the URL parser produce them; `ipaddr.parse` would also
  // accept "2130706433" or "0x7f.1", which must never reach this point as an address.
  if (net.isIP(bare) === 0 || bare.includes('%')) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(bare);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
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
export function checkUrl(raw: string, allowHosts: readonly string[]): { ok: true; url: URL } | { ok: false; refusal: UrlRefusal } {
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
