/**
 * Which names and addresses are this machine's loopback: the Host names a
 * local service answers without configuration, and the bind addresses that
 * need no explicit token.
 */

/** Host names (as in a Host header, IPv6 in brackets) that always mean this machine. */
const LOOPBACK_HOST_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True for `localhost`, `127.0.0.1` and `[::1]` (lowercased, no port): the Host names every local service accepts. */
export function isLoopbackHost(name: string): boolean {
  return LOOPBACK_HOST_NAMES.has(name.toLowerCase());
}

/**
 * True for a bind address that only this machine can reach: `localhost`,
 * `127.0.0.0/8`, `::1` (with or without brackets). `0.0.0.0`, `::` and
 * every other address are not.
 */
export function isLoopbackAddress(address: string): boolean {
  const lower = address.trim().toLowerCase();
  if (lower === 'localhost' || lower === '::1' || lower === '[::1]') return true;
  const match = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(lower);
  return match?.slice(1).every((part) => Number(part) <= 255) ?? false;
}

/** `::1` → `[::1]`, for a URL's host part. */
export function urlHost(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}
