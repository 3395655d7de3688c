/**
 * Address classification and the network policy of web_fetch: which URLs may
 * be requested (scheme, credentials, domain lists) and which addresses may be
 * connected to (public unicast only, unless the operator opts a host or a
 * CIDR in). The connector (connector.ts) enforces the address part at connect
 * time; `checkUrl` runs the same checks before each request of a redirect chain.
 */
import { isIP } from 'node:net';
import { AmplifierError, type CodesOf, defineErrors, type ErrorTable } from '@amplifier/core';
import ipaddr from 'ipaddr.js';

const rows = {
  WEB_URL_BLOCKED: {
    name: 'BlockedError',
    description: 'the network policy refused a URL or an address (`reason`)',
    message: 'blocked: {reason}',
  },
  WEB_REDIRECT_BLOCKED: {
    name: 'RedirectBlocked',
    description: 'a redirect hop after the first was refused (`target`, `reason`)',
    message: '{reason}',
  },
} as const;

/** The codes of this module, declared in core's error factory. The tools turn them into failed results. */
export const WEB_ERRORS: ErrorTable<typeof rows> = defineErrors(rows);

declare module '@amplifier/core' {
  interface DeclaredErrorCodes extends CodesOf<typeof WEB_ERRORS> {}
}

/** Raised when a URL or an address is refused (code `WEB_URL_BLOCKED`). `reason` says why, for the model. */
export class BlockedError extends AmplifierError {
  declare readonly code: 'WEB_URL_BLOCKED';
  readonly reason: string;
  constructor(reason: string) {
    super('WEB_URL_BLOCKED', WEB_ERRORS.message('WEB_URL_BLOCKED', { reason }));
    this.reason = reason;
  }
}

/** What the operator opted in to or out of (parsed from config, see `createPolicy`). */
export interface NetworkPolicy {
  /** `host` or `host:port` entries whose connections skip the address check. */
  readonly allowedHosts: readonly { host: string; port: string | null }[];
  /** CIDRs whose addresses are allowed even when not public. */
  readonly allowedCidrs: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
  /** When non-empty, only these domains (and their subdomains) may be fetched. */
  readonly allowedDomains: readonly string[];
  /** These domains (and their subdomains) are never fetched. */
  readonly blockedDomains: readonly string[];
}

/** Friendlier names of ipaddr.js ranges, for messages. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private (RFC 1918) address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10) address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique-local IPv6 address',
  ipv4Mapped: 'an IPv4-mapped or IPv4-compatible IPv6 address',
  rfc6052: 'a NAT64 (64:ff9b::/96) address',
  rfc6145: 'an IPv4-translated IPv6 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
};

/** Addresses of cloud metadata services, named in messages (their ranges are refused anyway). */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '169.254.170.2']);

/** Lower-case, without IPv6 brackets or a trailing dot. */
export function normalizeHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  while (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/**
 * Why `address` (an IP literal) must not be connected to, or `null` when it is
 * a public unicast address. Everything whose ipaddr.js range is not `unicast`
 * is refused: IPv4-mapped, NAT64, 6to4 and Teredo addresses included, since
 * they can reach internal IPv4 hosts; IPv6 outside 2000::/3 too (ipaddr.js
 * classes the IPv4-compatible `::7f00:1` as unicast).
 */
export function addressRefusal(address: string): string | null {
  const host = normalizeHost(address);
  if (isIP(host) === 0) return `${address} is not an IP address`;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(host);
  } catch {
    return `${address} is not an IP address`;
  }
  const range = parsed.range();
  if (parsed.kind() === 'ipv6' && ((parsed as ipaddr.IPv6).parts[0]! & 0xe000) !== 0x2000) {
    // Only 2000::/3 is global unicast; ipaddr.js calls e.g. IPv4-compatible ::7f00:1 "unicast".
    if (range === 'unicast')
      return `${host} is outside the global unicast range 2000::/3 (an IPv4-compatible or reserved IPv6 address)`;
  }
  if (range === 'unicast') return null;
  const what = RANGE_NAMES[range] ?? `a non-public (${range}) address`;
  const metadata = METADATA.has(parsed.toString()) ? ' (cloud metadata service)' : '';
  return `${host} is ${what}${metadata}`;
}

/** True when `host` is `entry` or a subdomain of it (never a substring match). */
export function matchesDomain(host: string, entry: string): boolean {
  return host === entry || host.endsWith(`.${entry}`);
}

/** The port a URL connects to: its own, or the scheme's default. */
export function effectivePort(protocol: string, port: string): string {
  if (port) return port;
  return protocol === 'https:' ? '443' : '80';
}

/** True when the operator listed this host (and port, if the entry has one) in `allowed_hosts`. */
export function isAllowedHost(policy: NetworkPolicy, host: string, port: string): boolean {
  const h = normalizeHost(host);
  return policy.allowedHosts.some(
    (entry) => entry.host === h && (entry.port === null || entry.port === port),
  );
}

/** Why the connector must not connect to `address` for `host:port`, or `null` if it may. */
export function connectRefusal(
  policy: NetworkPolicy,
  host: string,
  port: string,
  address: string,
): string | null {
  if (isAllowedHost(policy, host, port)) return null;
  const reason = addressRefusal(address);
  if (reason === null) return null;
  const parsed = ipaddr.parse(normalizeHost(address));
  for (const [net, bits] of policy.allowedCidrs) {
    if (net.kind() === parsed.kind() && parsed.match(net, bits)) return null;
  }
  return reason;
}

/** Longest URL accepted. */
export const MAX_URL_LENGTH = 8192;

/** Host names that always mean this machine (RFC 6761), refused before any DNS lookup. */
function isLocalName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.localdomain';
}

/**
 * Pre-flight for one request of a redirect chain: parses `input` with the
 * WHATWG URL parser (which canonicalizes IPv4 spellings such as `2130706433`,
 * `0177.0.0.1`, `0x7f.1` and `127.1`), allows only http/https without
 * credentials, applies the domain lists, and classifies IP literals. Names
 * are resolved and checked later, by the connector. Throws `BlockedError`.
 */
export function checkUrl(input: string | URL, policy: NetworkPolicy): URL {
  if (typeof input === 'string' && input.length > MAX_URL_LENGTH) {
    throw new BlockedError(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input.trim()) : input;
  } catch {
    throw new BlockedError('not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BlockedError(`only http and https URLs are allowed, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new BlockedError('URLs with credentials (user:password@) are not allowed');
  }
  const host = normalizeHost(url.hostname);
  if (host === '') throw new BlockedError('the URL has no host');
  const port = effectivePort(url.protocol, url.port);
  for (const entry of policy.blockedDomains) {
    if (matchesDomain(host, entry)) throw new BlockedError(`${host} is in blocked_domains (${entry})`);
  }
  if (
    policy.allowedDomains.length > 0 &&
    !policy.allowedDomains.some((entry) => matchesDomain(host, entry))
  ) {
    throw new BlockedError(`${host} is not in allowed_domains`);
  }
  if (isAllowedHost(policy, host, port)) return url;
  if (isIP(host) !== 0) {
    const reason = connectRefusal(policy, host, port, host);
    if (reason !== null) throw new BlockedError(reason);
  } else if (isLocalName(host)) {
    throw new BlockedError(`${host} names this machine`);
  }
  return url;
}

/** Parse a `host` or `host:port` entry of `allowed_hosts` (IP spellings canonicalized). */
function parseHostEntry(entry: string): { host: string; port: string | null } {
  const trimmed = entry.trim();
  const explicitPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(trimmed);
  let url: URL;
  try {
    url = new URL(`http://${trimmed}`);
  } catch {
    throw new Error(`allowed_hosts entry '${entry}' is not a host or host:port`);
  }
  if (url.pathname !== '/' || url.username || url.search) {
    throw new Error(`allowed_hosts entry '${entry}' is not a host or host:port`);
  }
  return { host: normalizeHost(url.hostname), port: explicitPort ? String(Number(explicitPort[2])) : null };
}

/** Lower-case a domain list entry and convert it to its ASCII (punycode) form. */
function parseDomain(entry: string, key: string): string {
  const trimmed = normalizeHost(entry.trim());
  try {
    const url = new URL(`http://${trimmed}`);
    if (url.pathname === '/' && !url.port && !url.username) return normalizeHost(url.hostname);
  } catch {
    // fall through
  }
  throw new Error(`${key} entry '${entry}' is not a domain name`);
}

/** Build a policy from config lists; throws an Error naming the bad entry. */
export function createPolicy(config: {
  allowed_hosts?: readonly string[];
  allowed_cidrs?: readonly string[];
  allowed_domains?: readonly string[];
  blocked_domains?: readonly string[];
}): NetworkPolicy {
  const allowedCidrs = (config.allowed_cidrs ?? []).map((cidr) => {
    try {
      return ipaddr.parseCIDR(cidr.trim());
    } catch {
      throw new Error(`allowed_cidrs entry '${cidr}' is not a CIDR (e.g. 10.1.0.0/16 or fd00::/8)`);
    }
  });
  return {
    allowedHosts: (config.allowed_hosts ?? []).map(parseHostEntry),
    allowedCidrs,
    allowedDomains: (config.allowed_domains ?? []).map((d) => parseDomain(d, 'allowed_domains')),
    blockedDomains: (config.blocked_domains ?? []).map((d) => parseDomain(d, 'blocked_domains')),
  };
}
