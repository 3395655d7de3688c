/**
 * A mounted MCP tool: the kernel `Tool` that calls one server-side tool
 * through its server's connection, under the idle timeout (reset by progress)
 * and the total cap, with the call's signal (the SDK sends
 * `notifications/cancelled`), progress forwarded to `onProgress`, and every
 * failure returned as a typed failed result, never thrown.
 */
import {
  errorMessage,
  type JSONSchema,
  type Tool,
  type ToolCallOptions,
  type ToolResult,
} from '@amplifier/core';
import { compileSchema } from '@amplifier/schema';
import { ErrorCode, McpError, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { type McpConnection, ServerUnavailableError } from './connection.js';
import { toToolResult } from './result.js';
import { cleanText, MAX_DESCRIPTION } from './untrusted.js';

export interface McpToolOptions {
  connection: McpConnection;
  definition: McpTool;
  mountedName: string;
  aliases: string[];
  maxContentSize: number;
  maxToolTimeoutMs: number;
  /** Called before each call (first-use tracking). */
  onUse?: () => void;
  /** The input schema cannot be compiled (it is then given to the model as text only). */
  onSchemaProblem?: (note: string) => void;
}

/**
 * The schema as is when ajv compiles it; else a permissive object schema
 * (calls are not validated locally, the server still checks them) and a note
 * carrying the original as text, so the model still knows the arguments.
 */
export function usableSchema(schema: JSONSchema): { inputSchema: JSONSchema; schemaNote?: string } {
  try {
    compileSchema(schema);
    return { inputSchema: schema };
  } catch (error) {
    const text = JSON.stringify(schema);
    return {
      inputSchema: { type: 'object' },
      schemaNote: `Input schema (not validated locally: ${errorMessage(error)}): ${text.length > 1500 ? `${text.slice(0, 1500)}…` : text}`,
    };
  }
}

/** Progress as `onProgress` receives it. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
  mcp_server: string;
  mcp_tool: string;
}

export function createMcpTool(options: McpToolOptions): Tool {
  const { connection, definition, mountedName, maxContentSize, maxToolTimeoutMs } = options;
  const server = connection.name;
  const toolName = definition.name;
  const readOnly = definition.annotations?.readOnlyHint === true;
  const title = definition.title ?? definition.annotations?.title;
  const { inputSchema, schemaNote } = usableSchema(
    (definition.inputSchema ?? { type: 'object' }) as JSONSchema,
  );
  if (schemaNote !== undefined) options.onSchemaProblem?.(schemaNote);
  const description = cleanText(
    `${definition.description ?? title ?? toolName} (MCP server '${server}', tool '${toolName}')${schemaNote ? `\n${schemaNote}` : ''}`,
    MAX_DESCRIPTION + 2000,
  );
  const context = { server, tool: toolName, maxContentSize };
  const fail = (message: string, type: string, extra: Record<string, unknown> = {}): ToolResult => ({
    success: false,
    error: { message, type, ...extra },
  });

  return {
    name: mountedName,
    description,
    inputSchema,
    aliases: options.aliases,
    executionProfile: {
      // Annotations only schedule: a server's tools serialize unless declared read-only.
      resourceKeys: () => [{ key: `mcp:${server}`, mode: readOnly ? 'read' : 'write' }],
      timeoutMs: maxToolTimeoutMs + 5000,
    },
    async execute(input: Record<string, unknown>, call: ToolCallOptions = {}): Promise<ToolResult> {
      const { signal, onProgress } = call;
      if (signal?.aborted) return fail(`MCP tool '${toolName}' was cancelled before it started`, 'cancelled');
      options.onUse?.();
      try {
        const result = await connection.callTool(toolName, input, {
          ...(signal ? { signal } : {}),
          timeout: connection.toolTimeoutMs,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: maxToolTimeoutMs,
          ...(onProgress
            ? {
                onprogress: (p: { progress: number; total?: number; message?: string }) => {
                  const progress: McpProgress = {
                    progress: p.progress,
                    mcp_server: server,
                    mcp_tool: toolName,
                  };
                  if (p.total !== undefined) progress.total = p.total;
                  if (p.message !== undefined) progress.message = p.message;
                  onProgress(progress);
                },
              }
            : {}),
        });
        return toToolResult(result, context);
      } catch (error) {
        return requestFailure(error, { what: `MCP tool '${toolName}'`, connection, signal });
      }
    },
  };
}

/**
 * A failed request (tool call, resource read, prompt get) as a failed
 * ToolResult: cancelled, `mcp_timeout`, `mcp_server_unavailable` (the
 * connection is marked lost, so the next request reconnects),
 * `mcp_output_schema_mismatch` or `mcp_protocol_error` with the JSON-RPC code.
 * `what` names the request in messages, e.g. "MCP tool 'echo'".
 */
export function requestFailure(
  error: unknown,
  request: { what: string; connection: McpConnection; signal?: AbortSignal | undefined },
): ToolResult {
  const { what, connection, signal } = request;
  const server = connection.name;
  const fail = (message: string, type: string, extra: Record<string, unknown> = {}): ToolResult => ({
    success: false,
    error: { message, type, ...extra },
  });
  if (signal?.aborted) return fail(`${what} on server '${server}' was cancelled`, 'cancelled');
  if (error instanceof ServerUnavailableError) return fail(error.message, 'mcp_server_unavailable');
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) {
      return fail(
        `${what} on server '${server}' timed out (${error.message}); raise tool_timeout_sec for the server if it needs longer`,
        'mcp_timeout',
      );
    }
    if (error.code === ErrorCode.ConnectionClosed) {
      return fail(`MCP server '${server}' closed the connection during the call`, 'mcp_server_unavailable');
    }
    if (error.code === ErrorCode.InvalidParams && /output schema|structured content/i.test(error.message)) {
      return fail(
        `${what} returned structured content that does not match its outputSchema: ${error.message}`,
        'mcp_output_schema_mismatch',
      );
    }
    return fail(`${what} on server '${server}' failed: ${error.message}`, 'mcp_protocol_error', {
      code: error.code,
      ...(error.data !== undefined ? { data: error.data } : {}),
    });
  }
  connection.markLost(error);
  return fail(
    `MCP server '${server}' is unreachable: ${error instanceof Error ? error.message : String(error)}`,
    'mcp_server_unavailable',
  );
}
