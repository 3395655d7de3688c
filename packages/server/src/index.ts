/**
 * @amplifier/server: what Amplifier's local HTTP services share (`amplifier
 * mcp serve --http`, `amplifier view`, `amplifier serve --durable`): the gate
 * in front of every route (per-start token, Host and Origin checks, no CORS),
 * the token rules, the 0600 runtime file that tells local tools the URL, and
 * 0600 unix sockets; and a session's turn as a stream of typed events
 * (`streamTurn`), the source of every way a turn is sent to a client.
 */
export { isLoopbackAddress, isLoopbackHost, urlHost } from './addresses.js';
export { type ChatHandlerOptions, createChatHandler, toNodeListener } from './chat-handler.js';
export {
  createGate,
  type Gate,
  type GateDecision,
  type GateOptions,
  type GateRefusal,
  hostNameOf,
  tokenEquals,
} from './gate.js';
export {
  ensurePrivateDir,
  type RuntimeFile,
  type RuntimeInfo,
  runtimeDir,
  writeRuntimeFile,
} from './runtime-file.js';
export {
  lastEventId,
  StreamBuffers,
  type StreamBuffersOptions,
  sseFrame,
  turnEventFrames,
  UI_MESSAGE_STREAM_HEADERS,
  uiMessageFrames,
} from './sse.js';
export {
  newToken,
  resolveServiceToken,
  SERVER_ERRORS,
  ServiceSetupError,
  type ServiceToken,
  type ServiceTokenOptions,
  TOKEN_BYTES,
} from './token.js';
export {
  createTurnStream,
  DEFAULT_TURN_BUFFER_SIZE,
  streamTurn,
  TURN_PROGRESS_EVENTS,
  TURN_STREAM_EVENTS,
  TURN_STREAM_HANDLER,
  type TurnBlockEnd,
  type TurnCompaction,
  type TurnContentBlock,
  type TurnEvent,
  type TurnEventSource,
  type TurnFinish,
  type TurnProviderError,
  type TurnProviderRequest,
  type TurnProviderResponse,
  type TurnProviderRetry,
  type TurnStream,
  type TurnStreamAborted,
  type TurnStreamOptions,
  type TurnStreamSource,
  type TurnTextDelta,
  type TurnThinkingDelta,
  type TurnToolCall,
  type TurnToolDenied,
  type TurnToolError,
  type TurnToolResult,
  type TurnUsage,
  type TurnWatchOptions,
  toTurnEvent,
  watchTurnEvents,
} from './turn-stream.js';
export {
  defaultErrorText,
  toUIMessageChunks,
  type UIMessageChunk,
  type UIMessageStreamOptions,
} from './ui-message-stream.js';
export { listenUnix, prepareUnixSocketPath } from './unix-socket.js';
