/**
 * @amplifier/provider-http/testing: what a provider's tests need and a
 * provider's runtime never does. `FakeLlmServer` is a real HTTP server on
 * 127.0.0.1 that answers with scripted replies (JSON, SSE split at any byte,
 * held, dropped connections) and records what it was sent;
 * `transportConformance` checks the transport a provider plugs into
 * `ProviderHttpClient` against it; `streamingConformance` checks a provider's
 * token-streaming events against Amplifier's contract (`replayedStreams`
 * replays recorded wire streams for an HTTP provider). The suites use
 * vitest, an optional peer.
 */
import { describe, it } from 'vitest';
import { type StreamingUnderTest, streamingContractChecks } from './streaming-checks.js';
import { type TransportUnderTest, transportChecks } from './transport-checks.js';

export type { FakeReply, HeldReply, RecordedRequest, ReplyPiece } from './fake-llm-server.js';
export { FakeLlmServer, llmErrorOf, reply, splitBytes, sseEvent } from './fake-llm-server.js';
export type { LoggedStreamEvent, TranscriptLine } from './fault-checks.js';
export { recordStreamEvents, transcript, unansweredToolCalls } from './fault-checks.js';
export type {
  RecordedStreamEvent,
  ReplayedAnswers,
  StreamingCheck,
  StreamingProvider,
  StreamingScenario,
  StreamingSubject,
  StreamingUnderTest,
} from './streaming-checks.js';
export { replayedStreams, streamingContractChecks, streamingContractProblems } from './streaming-checks.js';
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

/**
 * A provider's token-streaming events follow Amplifier's contract: one
 * `request_id` per call, one block index space, per-block `sequence`, no
 * empty or tool-input deltas, start before deltas before end, every started
 * block ended, `llm:stream_aborted` only after a delta, and nothing streamed
 * for `metadata.stream === false`.
 */
export function streamingConformance(subject: StreamingUnderTest): void {
  describe('streaming contract conformance', () => {
    for (const check of streamingContractChecks) {
      it(check.name, () => check.run(subject));
    }
  });
}
