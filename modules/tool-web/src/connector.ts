/**
 * The SSRF guard where the connection is made: an undici connector that
 * resolves the host itself, checks every address of the answer, and connects
 * to an address it checked. Nothing resolves the name a second time, so DNS
 * rebinding between the check and the connect cannot happen; IP literals are
 * checked too (undici's `connect.lookup` alone never sees them).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type Socket } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { BlockedError, connectRefusal, effectivePort, type NetworkPolicy, normalizeHost } from './ssrf.js';

/** One address of a DNS answer. */
export interface LookupAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has. Tests inject a fake one. */
export type LookupFunction = (hostname: string) => Promise<readonly LookupAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), every address, in the OS's order. */
export const systemLookup: LookupFunction = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface GuardedConnectorOptions {
  policy: NetworkPolicy;
  lookup?: LookupFunction;
  /** TCP/TLS connect timeout per address, in ms. */
  connectTimeoutMs?: number;
}

/**
 * An undici connector that refuses non-public addresses (unless the policy
 * opts them in), refuses a DNS answer if any of its addresses is refused, and
 * connects to the checked addresses in order (the next on a connect error).
 */
export function createGuardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const { policy } = options;
  const lookup = options.lookup ?? systemLookup;
  const base = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000 });

  const connectTo = (
    opts: buildConnector.Options,
    addresses: readonly string[],
    index: number,
    callback: buildConnector.Callback,
  ): void => {
    base({ ...opts, hostname: addresses[index]! }, (error, socket) => {
      if (error !== null && index + 1 < addresses.length) {
        connectTo(opts, addresses, index + 1, callback);
        return;
      }
      if (error !== null) callback(error, null);
      else callback(null, socket as Socket);
    });
  };

  return (opts, callback) => {
    const host = normalizeHost(opts.hostname);
    const port = effectivePort(opts.protocol, opts.port);
    if (isIP(host) !== 0) {
      const reason = connectRefusal(policy, host, port, host);
      if (reason !== null) callback(new BlockedError(reason), null);
      else connectTo(opts, [host], 0, callback);
      return;
    }
    lookup(host).then(
      (answer) => {
        if (answer.length === 0) {
          callback(new Error(`DNS lookup of ${host} returned no address`), null);
          return;
        }
        const refused: string[] = [];
        for (const { address } of answer) {
          const reason = connectRefusal(policy, host, port, address);
          if (reason !== null) refused.push(reason);
        }
        if (refused.length > 0) {
          const mixed =
            refused.length < answer.length ? ' (the answer mixes public and non-public addresses)' : '';
          callback(new BlockedError(`${host} resolves to ${refused.join('; ')}${mixed}`), null);
          return;
        }
        connectTo(
          opts,
          answer.map((a) => a.address),
          0,
          callback,
        );
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };
}

export interface DispatcherOptions extends GuardedConnectorOptions {
  /** Largest response head accepted, in bytes. */
  maxHeaderBytes: number;
  /** Idle timeouts (the overall deadline is enforced by the caller's signal). */
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

/** The shared dispatcher of a mount: an undici Agent whose every connection goes through the guard. */
export function createGuardedAgent(options: DispatcherOptions): Agent {
  return new Agent({
    connect: createGuardedConnector(options),
    maxHeaderSize: options.maxHeaderBytes,
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    keepAliveTimeout: 4_000,
    connections: 8,
  });
}
