/**
 * @amplifier/provider-http/testing: what a provider's tests need and a
 * provider's runtime never does. `FakeLlmServer` is a real HTTP server on
 * 127.0.0.1 that answers with scripted replies (JSON, SSE split at any byte,
 * held, dropped connections) and records what it was sent;
 * `transportConformance` checks the transport a provider plugs into
 * `ProviderHttpClient` against it. The suite uses vitest, an optional peer.
 */
import { describe, it } from 'vitest';
import { type TransportUnderTest, transportChecks } from './transport-checks.js';

export type { FakeReply, HeldReply, RecordedRequest, ReplyPiece } from './fake-llm-server.js';
export { FakeLlmServer, llmErrorOf, reply, splitBytes, sseEvent } from './fake-llm-server.js';
export type { TransportCheck, TransportUnderTest } from './transport-checks.js';
export { transportChecks } from './transport-checks.js';

/**
 * The transport an HTTP provider plugs into `ProviderHttpClient` maps
 * timeouts, aborts, refused and dropped connections to LLMErrors and releases
 * connections (against a real local server).
 */
export function transportConformance(subject: TransportUnderTest): void {
  describe('transport conformance', () => {
    for (const check of transportChecks) {
      it(check.name, () => check.run(subject));
    }
  });
}
