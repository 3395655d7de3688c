/**
 * A transport over Node's global fetch, for core's own tests (core has no
 * HTTP client dependency): the timeout covers the whole exchange through
 * `AbortSignal.timeout`, whose `TimeoutError` core maps to a timeout.
 */
import { Readable } from 'node:stream';
import type { Transport } from '../transport.js';

export function fetchTransport(baseUrl: URL): Transport {
  const inFlight = new Set<AbortController>();
  return {
    async request(request) {
      const controller = new AbortController();
      inFlight.add(controller);
      const signals = [controller.signal, AbortSignal.timeout(request.timeoutMs)];
      if (request.signal !== undefined) signals.push(request.signal);
      const response = await fetch(new URL(request.path, baseUrl.origin), {
        method: request.method,
        headers: request.headers,
        ...(request.body !== undefined && { body: request.body }),
        signal: AbortSignal.any(signals),
      });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const body = response.body ?? Readable.from([]);
      return { status: response.status, headers, body: body as AsyncIterable<Uint8Array> };
    },
    async close() {
      for (const controller of inFlight) controller.abort();
    },
  };
}
