// Where Acredita may send a request a user configured (an alert channel's URL): https to a public
// address. A URL that names, or resolves to, loopback, a private range, link-local (the cloud metadata
// service at 169.254.169.254 among them), CGNAT, unique-local IPv6 or another special range is refused,
// so a channel cannot make the server probe its own network (OWASP, Server-Side Request Forgery
// Prevention Cheat Sheet).
import { lookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { BlockList, isIP } from "node:net";

/** Why an outbound URL was refused: a stable code, shown with its sentence. */
export type OutboundUrlRefusal = "invalid_url" | "not_https" | "credentials_in_url" | "private_address" | "unresolvable";

/** Raised by {@link assertOutboundUrl}; the message never repeats the URL (it may carry a token). */
export class OutboundUrlError extends Error {
  constructor(
    readonly refusal: OutboundUrlRefusal,
    message: string,
  ) {
    super(message);
    this.name = "OutboundUrlError";
  }
}

// IANA's special-purpose registries (RFC 6890 and its updates): none of these is a public host.
const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private (RFC 1918)
  ["100.64.0.0", 10], // carrier-grade NAT (RFC 6598)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, the cloud metadata service (169.254.169.254)
  ["172.16.0.0", 12], // private (RFC 1918)
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16], // private (RFC 1918)
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  blocked.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b::", 96], // NAT64 (a private IPv4 inside)
  ["100::", 64], // discard
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const)
  blocked.addSubnet(network, prefix, "ipv6");

/** An IPv4-mapped (::ffff:a.b.c.d) or IPv4-compatible IPv6 address's IPv4 part, else undefined. */
function embeddedIpv4(address: string): string | undefined {
  const dotted = /^::(ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[2];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** True when `address` (an IPv4 or IPv6 literal) is not a public unicast address. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    return v4 !== undefined ? blocked.check(v4, "ipv4") : blocked.check(address, "ipv6");
  }
  return true;
}

/** Resolves a host name to its addresses (injectable in tests). */
export type Resolve = (host: string) => Promise<string[]>;

const resolveWithDns: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Checks a user-given URL before anything is sent to it, at configuration and again at every send (a
 * name may resolve elsewhere later). `allowPrivate` (ALERTS_ALLOW_PRIVATE_URLS, for tests and closed
 * networks) allows http and any address. Otherwise: https only, no user:password part, and every
 * address the host resolves to must be public. Returns the parsed URL; throws {@link OutboundUrlError}.
 * A send uses {@link resolveOutboundUrl} instead, to connect to the addresses it checked.
 */
export async function assertOutboundUrl(raw: string, options: { allowPrivate: boolean; resolve?: Resolve }): Promise<URL> {
  return (await resolveOutboundUrl(raw, options)).url;
}

/**
 * {@link assertOutboundUrl}, also returning the public addresses it checked (undefined when
 * `allowPrivate`, or the host is an address itself): a request pinned to them ({@link pinnedLookup})
 * cannot be sent to another address by a DNS answer that changes after the check (DNS rebinding).
 * Throws {@link OutboundUrlError}.
 */
export async function resolveOutboundUrl(raw: string, options: { allowPrivate: boolean; resolve?: Resolve }): Promise<{ url: URL; addresses?: string[] }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundUrlError("invalid_url", "not a URL");
  }
  if (options.allowPrivate) {
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new OutboundUrlError("not_https", "must be an https:// URL");
    return { url };
  }
  if (url.protocol !== "https:") throw new OutboundUrlError("not_https", "must be an https:// URL");
  if (url.username || url.password) throw new OutboundUrlError("credentials_in_url", "must not carry a user name or password");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (options.resolve ?? resolveWithDns)(host);
    } catch {
      throw new OutboundUrlError("unresolvable", "its host name does not resolve");
    }
    if (addresses.length === 0) throw new OutboundUrlError("unresolvable", "its host name does not resolve");
  }
  if (addresses.some(isNonPublicAddress)) throw new OutboundUrlError("private_address", "must point to a public address (not loopback, private, link-local or another reserved range)");
  return isIP(host) ? { url } : { url, addresses };
}

/**
 * A `lookup` for node:http(s) requests that answers every name with `addresses` (checked by
 * {@link resolveOutboundUrl}) instead of asking DNS again. TLS still verifies the certificate against the
 * URL's host name (the request's servername), so pinning changes where it connects, not whom it trusts.
 */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return ((_hostname: string, options: { all?: boolean }, callback: (error: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void) => {
    if (options?.all) callback(null, entries);
    else callback(null, entries[0].address, entries[0].family);
  }) as LookupFunction;
}
