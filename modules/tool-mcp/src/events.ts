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

export const MCP_EVENTS: readonly string[] = [
  MCP_SERVER_STARTED,
  MCP_SERVER_FAILED,
  MCP_SERVER_DIED,
  MCP_TOOLS_CHANGED,
  MCP_TOOL_DEFINITION_CHANGED,
];
