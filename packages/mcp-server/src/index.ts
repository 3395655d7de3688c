/**
 * @amplifier/mcp-server: serve an Amplifier session's tools, or its agent as
 * one tool, to MCP hosts over stdio or Streamable HTTP, from any app. HTTP
 * goes through @amplifier/server's gate (token, Host, Origin, 0600 unix
 * sockets); stdio lines are bounded (an oversized line is a JSON-RPC error,
 * the server goes on).
 */

export { ServiceSetupError } from '@amplifier/server';
export {
  AGENT_TOOL,
  AgentBackend,
  type AgentBackendOptions,
  type AgentConversation,
  type AgentTurnOutcome,
  sessionConversation,
} from './agent.js';
export {
  createHttpHandler,
  DEFAULT_HTTP_PORT,
  type HttpHandlerOptions,
  type HttpListenOptions,
  type HttpServing,
  listenHttp,
  type McpHttpHandler,
  newSessionId,
} from './http.js';
export {
  type AgentExposure,
  type BackendExposure,
  createMcpServer,
  type McpHttpOptions,
  type McpListenOptions,
  type McpServer,
  type McpServerOptions,
  type StdioServeOptions,
  type StdioServing,
  type ToolsExposure,
} from './mcp-server.js';
export {
  type ConnectionOptions,
  createProtocolServer,
  PACKAGE_VERSION,
  ProgressReporter,
  type ServeBackend,
  type ServedCallContext,
  type ServerInfo,
} from './protocol.js';
export {
  inputProblem,
  runServedCall,
  type ServedCallOptions,
  type ServedCallResult,
} from './served-call.js';
export { type BoundedStdioOptions, BoundedStdioTransport, DEFAULT_MAX_LINE_BYTES } from './stdio.js';
export { mcpInputSchema, type ToolFilter, ToolsBackend } from './tools.js';
