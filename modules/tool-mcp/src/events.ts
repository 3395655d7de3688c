/**
 * Events tool-mcp emits (beyond the canonical set), declared on
 * `observability.events` so loggers subscribe to them. Payloads are
 * snake_case data; env and header values never appear in them.
 */

/** A server started and its tools are mounted: `{ server, transport, server_info, tools, mounted }`. */
export const MCP_SERVER_STARTED = 'mcp:server_started';
/** A server could not start (or its entry is invalid): `{ server, error, required }`. */
export const MCP_SERVER_FAILED = 'mcp:server_failed';
/** A started server exited or lost its connection: `{ server, error }`. Its tools fail, the next call restarts it. */
export const MCP_SERVER_DIED = 'mcp:server_died';
/** A server's tool list changed and was remounted: `{ server, added, removed, changed }` (mounted names). */
export const MCP_TOOLS_CHANGED = 'mcp:tools_changed';
/** A tool's definition changed after its first use: `{ server, tool, mounted_name, action }` (`warn` | `disable`). */
export const MCP_TOOL_DEFINITION_CHANGED = 'mcp:tool_definition_changed';

/** Every event of this module, for `observability.events`. */
export const MCP_EVENTS: readonly McpEventName[] = [
  MCP_SERVER_STARTED,
  MCP_SERVER_FAILED,
  MCP_SERVER_DIED,
  MCP_TOOLS_CHANGED,
  MCP_TOOL_DEFINITION_CHANGED,
];

/** `mcp:server_started`: a server started and its tools are mounted. */
export interface McpServerStartedEvent {
  server: string;
  transport: string;
  server_info: unknown;
  /** How many tools the server lists. */
  tools: number;
  /** The mounted tool names. */
  mounted: string[];
  [key: string]: unknown;
}

/** `mcp:server_failed`: a server could not start (or its entry is invalid). */
export interface McpServerFailedEvent {
  server: string;
  error: string;
  required: boolean;
  [key: string]: unknown;
}

/** `mcp:server_died`: a started server exited or lost its connection. */
export interface McpServerDiedEvent {
  server: string;
  error: string;
  [key: string]: unknown;
}

/** `mcp:tools_changed`: a server's tool list changed and was remounted (mounted names). */
export interface McpToolsChangedEvent {
  server: string;
  added: string[];
  removed: string[];
  changed: string[];
  [key: string]: unknown;
}

/** `mcp:tool_definition_changed`: a tool's definition changed after its first use. */
export interface McpToolDefinitionChangedEvent {
  server: string;
  tool: string;
  mounted_name: string;
  action: 'warn' | 'disable';
  [key: string]: unknown;
}

/** The name of an event of this module. */
export type McpEventName =
  | typeof MCP_SERVER_STARTED
  | typeof MCP_SERVER_FAILED
  | typeof MCP_SERVER_DIED
  | typeof MCP_TOOLS_CHANGED
  | typeof MCP_TOOL_DEFINITION_CHANGED;

// The events typed in core's map, so `hooks.emit` and `hooks.register` check them.
declare module '@amplifier/core' {
  interface EventPayloads {
    [MCP_SERVER_STARTED]: McpServerStartedEvent;
    [MCP_SERVER_FAILED]: McpServerFailedEvent;
    [MCP_SERVER_DIED]: McpServerDiedEvent;
    [MCP_TOOLS_CHANGED]: McpToolsChangedEvent;
    [MCP_TOOL_DEFINITION_CHANGED]: McpToolDefinitionChangedEvent;
  }
}
