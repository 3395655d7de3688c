/**
 * An MCP server's resources and prompts as tools, mounted only with
 * `expose_resources` / `expose_prompts` (Amplifier mounts them always; they
 * are more text from an untrusted server in the model's tool list, so here
 * they are opt-in). Names follow Amplifier's format through the same naming
 * rules as tools: `mcp_<server>_resource_<name>` (no input: reads the
 * resource's URI) and `mcp_<server>_prompt_<name>` (the prompt's arguments as
 * string inputs: returns the prompt's messages as text). Both only read, so
 * they schedule as readers of the server.
 */
import type { JSONSchema, Tool, ToolCallOptions, ToolResult } from '@amplifier/core';
import type {
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpConnection } from './connection.js';
import { blockText, capContent } from './result.js';
import { requestFailure } from './tool.js';
import { cleanText, MAX_DESCRIPTION } from './untrusted.js';

export interface ExposedToolOptions {
  connection: McpConnection;
  mountedName: string;
  maxContentSize: number;
  maxToolTimeoutMs: number;
}

/** What a resource or prompt tool returns in `output`. */
export interface McpExposedOutput {
  content: string;
  mcp_server: string;
  /** The resource's URI (resource tools). */
  mcp_resource?: string;
  /** The prompt's name (prompt tools). */
  mcp_prompt?: string;
  content_size_chars: number;
  content_truncated: boolean;
}

type Content = ReadResourceResult['contents'][number];

/** The text of a `resources/read` result: text contents as they are, blobs as a placeholder. */
export function resourceText(result: ReadResourceResult): string {
  const contents: Content[] = Array.isArray(result.contents) ? result.contents : [];
  if (contents.length === 1 && 'text' in contents[0]! && typeof contents[0].text === 'string')
    return contents[0].text;
  return contents.map((resource) => blockText({ type: 'resource', resource })).join('\n');
}

/** The text of a `prompts/get` result: its description, then each message as `role: text`. */
export function promptText(result: GetPromptResult): string {
  const messages = Array.isArray(result.messages) ? result.messages : [];
  const lines = messages.map((message) => `${message.role}: ${blockText(message.content)}`);
  return [...(result.description ? [result.description] : []), ...lines].join('\n\n');
}

function exposedTool(
  options: ExposedToolOptions,
  spec: {
    description: string;
    inputSchema: JSONSchema;
    what: string;
    key: { mcp_resource: string } | { mcp_prompt: string };
    run: (input: Record<string, unknown>, signal: AbortSignal | undefined) => Promise<string>;
  },
): Tool {
  const { connection, mountedName, maxContentSize, maxToolTimeoutMs } = options;
  const server = connection.name;
  return {
    name: mountedName,
    description: cleanText(spec.description, MAX_DESCRIPTION + 200),
    inputSchema: spec.inputSchema,
    executionProfile: {
      resourceKeys: () => [{ key: `mcp:${server}`, mode: 'read' }],
      timeoutMs: maxToolTimeoutMs + 5000,
    },
    async execute(input: Record<string, unknown>, call: ToolCallOptions = {}): Promise<ToolResult> {
      const { signal } = call;
      if (signal?.aborted)
        return {
          success: false,
          error: { message: `${spec.what} was cancelled before it started`, type: 'cancelled' },
        };
      try {
        const text = await spec.run(input, signal);
        const capped = capContent(text, maxContentSize);
        const output: McpExposedOutput = {
          content: capped.content,
          mcp_server: server,
          ...spec.key,
          content_size_chars: capped.content_size_chars,
          content_truncated: capped.content_truncated,
        };
        return { success: true, output };
      } catch (error) {
        return requestFailure(error, { what: spec.what, connection, signal });
      }
    },
  };
}

function requestOptions(
  connection: McpConnection,
  maxToolTimeoutMs: number,
  signal: AbortSignal | undefined,
) {
  return {
    ...(signal ? { signal } : {}),
    timeout: connection.toolTimeoutMs,
    resetTimeoutOnProgress: true,
    maxTotalTimeout: maxToolTimeoutMs,
  };
}

/** The tool that reads one resource. */
export function createResourceTool(options: ExposedToolOptions, resource: Resource): Tool {
  const { connection, maxToolTimeoutMs } = options;
  const label = resource.title ?? resource.name;
  const about = [resource.uri, resource.mimeType].filter(Boolean).join(', ');
  return exposedTool(options, {
    description: `Read the resource '${label}' (${about}) of MCP server '${connection.name}'${resource.description ? `: ${resource.description}` : ''}`,
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    what: `MCP resource '${resource.uri}'`,
    key: { mcp_resource: resource.uri },
    run: async (_input, signal) =>
      resourceText(
        await connection.readResource(resource.uri, requestOptions(connection, maxToolTimeoutMs, signal)),
      ),
  });
}

/** The tool that gets one prompt; its arguments are the tool's string inputs. */
export function createPromptTool(options: ExposedToolOptions, prompt: Prompt): Tool {
  const { connection, maxToolTimeoutMs } = options;
  const properties: Record<string, JSONSchema> = {};
  const required: string[] = [];
  for (const argument of prompt.arguments ?? []) {
    properties[argument.name] = {
      type: 'string',
      ...(argument.description ? { description: cleanText(argument.description, 500) } : {}),
    };
    if (argument.required === true) required.push(argument.name);
  }
  return exposedTool(options, {
    description: `Get the prompt '${prompt.title ?? prompt.name}' of MCP server '${connection.name}'${prompt.description ? `: ${prompt.description}` : ''}`,
    inputSchema: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    what: `MCP prompt '${prompt.name}'`,
    key: { mcp_prompt: prompt.name },
    run: async (input, signal) => {
      const args: Record<string, string> = {};
      for (const [name, value] of Object.entries(input)) if (typeof value === 'string') args[name] = value;
      return promptText(
        await connection.getPrompt(prompt.name, args, requestOptions(connection, maxToolTimeoutMs, signal)),
      );
    },
  });
}
