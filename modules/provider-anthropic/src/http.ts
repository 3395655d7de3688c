/**
 * The undici side of HTTP: one connection pool per provider instance, bound
 * to the base URL's origin. Everything else (base path, JSON, error mapping,
 * SSE) is `ProviderHttpClient` from `@amplifier/core/provider`.
 */
import type { Transport } from '@amplifier/core/provider';
import { Pool } from 'undici';

/** A pooled undici transport; the timeout applies to the headers and between body chunks. */
export function undiciTransport(baseUrl: URL, connections: number): Transport {
  const pool = new Pool(baseUrl.origin, { connections, pipelining: 1 });
  return {
    async request({ timeoutMs, ...request }) {
      const response = await pool.request({ ...request, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      return { status: response.statusCode, headers: response.headers, body: response.body };
    },
    async close() {
      if (!pool.destroyed) await pool.destroy();
    },
  };
}
