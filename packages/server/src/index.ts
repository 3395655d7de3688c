/**
 * @amplifier/server: what Amplifier's local HTTP services share (`amplifier
 * mcp serve --http`, `amplifier view`, `amplifier serve --durable`): the gate
 * in front of every route (per-start token, Host and Origin checks, no CORS),
 * the token rules, the 0600 runtime file that tells local tools the URL, and
 * 0600 unix sockets.
 */
export { isLoopbackAddress, isLoopbackHost, urlHost } from './addresses.js';
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
  newToken,
  resolveServiceToken,
  SERVER_ERRORS,
  ServiceSetupError,
  type ServiceToken,
  type ServiceTokenOptions,
  TOKEN_BYTES,
} from './token.js';
export { listenUnix, prepareUnixSocketPath } from './unix-socket.js';
