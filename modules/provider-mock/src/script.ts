/**
 * Scripts: the steps a mock provider replays, their JSON Schema (checked with
 * core's shared ajv), loading from a JSON or YAML file, and turning a step into
 * a ChatResponse.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type ChatRequest,
  type ChatResponse,
  type ContentBlock,
  type DataError,
  DataValidationError,
  formatDataErrors,
  type JSONSchema,
  LLM_ERROR_KINDS,
  type LLMErrorKind,
  type Logger,
  stringifyJson,
  type ToolCall,
  type Usage,
} from '@amplifier/core';
import { compileSchema, readModuleConfig } from '@amplifier/schema';
import { cloneData } from './clone.js';

/** A scripted tool call: core's ToolCall with `id` generated when omitted and `arguments` defaulting to `{}`. */
export type ScriptToolCall = Pick<ToolCall, 'name'> & Partial<Pick<ToolCall, 'id' | 'arguments'>>;

/** A scripted failure, thrown as core's LLMError of that kind. */
export interface ScriptError {
  kind: LLMErrorKind;
  message?: string;
  status_code?: number;
  /** Seconds. */
  retry_after?: number;
  /** Overrides the kind's default. */
  retryable?: boolean;
}

/** One response of the script. A bare string is a text response. */
export interface ScriptStepObject {
  text?: string;
  /** A thinking block; an object carries its signature. */
  thinking?: string | { thinking: string; signature?: string };
  tool_calls?: ScriptToolCall[];
  /** Extra content blocks, after thinking and text. */
  content?: ContentBlock[];
  /** Missing counts are estimated (JSON length / 4); `total_tokens` defaults to input + output. */
  usage?: Partial<Usage>;
  finish_reason?: string;
  metadata?: Record<string, unknown>;
  /** Wait this long before answering (or failing); aborting the request's signal ends the wait. */
  delay_ms?: number;
  /** Fail with this error instead of answering (cannot be combined with response fields). */
  error?: ScriptError;
  /**
   * Stream the step's thinking and text, then fail with this error before the
   * response completes: a stream cut after partial output (its tool calls are
   * never sent). Needs `text` or `thinking`. Without streaming the call fails
   * with it right away.
   */
  stream_error?: ScriptError;
}

export type ScriptStep = string | ScriptStepObject;

const RESPONSE_FIELDS = ['text', 'thinking', 'tool_calls', 'content'] as const;

const count = { type: 'integer', minimum: 0 };

const SCRIPT_ERROR_SCHEMA: JSONSchema = {
  type: 'object',
  required: ['kind'],
  properties: {
    kind: { enum: [...LLM_ERROR_KINDS] },
    message: { type: 'string' },
    status_code: { type: 'integer', minimum: 100, maximum: 599 },
    retry_after: { type: 'number', minimum: 0 },
    retryable: { type: 'boolean' },
  },
};

/** JSON Schema of one script step. */
export const SCRIPT_STEP_SCHEMA: JSONSchema = {
  type: ['string', 'object'],
  properties: {
    text: { type: 'string' },
    thinking: {
      type: ['string', 'object'],
      required: ['thinking'],
      properties: { thinking: { type: 'string' }, signature: { type: 'string' } },
    },
    tool_calls: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          id: { type: 'string', minLength: 1 },
          name: { type: 'string', minLength: 1 },
          arguments: { type: 'object' },
        },
      },
    },
    content: {
      type: 'array',
      items: { $ref: 'https://amplifier-ts.dev/schemas/v1/message.json#/$defs/contentBlock' },
    },
    usage: {
      type: 'object',
      properties: {
        input_tokens: count,
        output_tokens: count,
        total_tokens: count,
        reasoning_tokens: count,
        cache_read_tokens: count,
        cache_write_tokens: count,
        cost_usd: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' },
      },
    },
    finish_reason: { type: 'string' },
    metadata: { type: 'object' },
    delay_ms: { type: 'number', minimum: 0 },
    error: SCRIPT_ERROR_SCHEMA,
    stream_error: SCRIPT_ERROR_SCHEMA,
  },
};

/**
 * JSON Schema of the module config (`respond`, a function, is checked separately):
 * the source of `ProviderMockConfig`'s keys (`FromSchema`). The script's steps are
 * typed by hand (`ScriptStep`: core's content blocks, usage and tool calls).
 */
export const CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    /** The responses, in order. */
    script: { type: 'array', minItems: 1, items: SCRIPT_STEP_SCHEMA as JSONSchema },
    /** A JSON or YAML file holding the script (read by `mount`). */
    script_file: { type: 'string', minLength: 1 },
    /** After the last step, keep answering with it. */
    repeat_last: { type: 'boolean' },
    /** After the last step, start over from the first. */
    loop: { type: 'boolean' },
    /** Default `mock-model`. */
    model: { type: 'string', minLength: 1 },
    /** Default 200000. */
    context_window: { type: 'integer', minimum: 1 },
    /** Default 8192. */
    max_output_tokens: { type: 'integer', minimum: 1 },
    /** Provider priority for orchestrators (lower first). Default 100. */
    priority: { type: 'number' },
    /** The text of no-script mode. Default `DEFAULT_TEXT`. */
    default_text: { type: 'string' },
    /**
     * `complete()` streams its answer internally and emits the token-streaming
     * events (`llm:stream_block_*`). Default true; a request with
     * `metadata.stream === false` is never streamed.
     */
    use_streaming: { type: 'boolean' },
    /** Characters per streamed text or thinking fragment. Default 16. */
    stream_chunk_chars: { type: 'integer', minimum: 1 },
    /** Seconds between two streamed fragments (`stream_delay_ms`: milliseconds). Default 0. */
    stream_delay: { type: 'number', minimum: 0 },
    stream_delay_ms: { type: 'number', minimum: 0 },
    // The reference's keys (Amplifier's test profile).
    /** The reference's name of `default_text`. */
    default_response: { type: 'string' },
    /** Seconds to wait before each answer (`response_delay_ms`: milliseconds); aborting the request ends the wait. */
    response_delay: { type: 'number', minimum: 0 },
    response_delay_ms: { type: 'number', minimum: 0 },
    /** Probability (0 to 1) that a call fails with a retryable `unavailable` LLMError. Default 0. */
    fail_probability: { type: 'number', minimum: 0, maximum: 1 },
    // Functions, given in code (checked by `checkConfig`).
    respond: {},
    random: {},
  },
} as const;

/** Problems of a config (paths like `script[2].tool_calls[0].name`), schema and cross-field rules. */
export function checkConfig(config: Record<string, unknown>): DataError[] {
  const errors = compileSchema(CONFIG_SCHEMA)(config);
  if (errors.length > 0) return errors;
  const script = config.script as ScriptStep[] | undefined;
  script?.forEach((step, i) => {
    if (typeof step === 'string') return;
    const given = RESPONSE_FIELDS.filter((key) => step[key] !== undefined);
    if (step.error !== undefined && given.length > 0) {
      errors.push({
        path: `script[${i}]`,
        message: `has both error and ${given.join(', ')}: an error step only fails`,
      });
    } else if (step.error === undefined && given.length === 0) {
      errors.push({
        path: `script[${i}]`,
        message: 'needs at least one of text, thinking, tool_calls, content or error',
      });
    }
    if (step.stream_error !== undefined && step.text === undefined && step.thinking === undefined) {
      errors.push({
        path: `script[${i}].stream_error`,
        message: 'needs text or thinking to stream before the error (use error to fail without output)',
      });
    }
  });
  if (config.respond !== undefined && typeof config.respond !== 'function') {
    errors.push({
      path: 'respond',
      message: 'must be a function (pass it in code, not in a mount plan file)',
    });
  }
  if (config.respond !== undefined && (config.script !== undefined || config.script_file !== undefined)) {
    errors.push({ path: 'respond', message: 'cannot be combined with script or script_file: choose one' });
  }
  if (config.script !== undefined && config.script_file !== undefined) {
    errors.push({ path: 'script_file', message: 'cannot be combined with script: choose one' });
  }
  if (config.random !== undefined && typeof config.random !== 'function') {
    errors.push({
      path: 'random',
      message: 'must be a function returning a number in [0, 1) (pass it in code)',
    });
  }
  if (
    typeof config.default_response === 'string' &&
    typeof config.default_text === 'string' &&
    config.default_response !== config.default_text
  ) {
    errors.push({
      path: 'default_response',
      message: 'differs from default_text; give one (default_response is the reference name)',
    });
  }
  if (config.loop === true && config.repeat_last === true) {
    errors.push({ path: 'loop', message: 'cannot be combined with repeat_last: choose one' });
  }
  return errors;
}

/** Throw a `DataValidationError` listing every problem of a config. */
export function assertConfig(config: Record<string, unknown>, where = 'config'): void {
  const errors = checkConfig(config);
  if (errors.length > 0) {
    throw new DataValidationError(`provider-mock: invalid ${where}:\n${formatDataErrors(errors)}`, errors);
  }
}

/**
 * Read a script from a JSON (`.json`) or YAML (anything else) file: a list of
 * steps, or `{ script: [...] }`. Relative paths resolve against `baseDir`.
 */
export async function loadScriptFile(
  file: string,
  baseDir: string = process.cwd(),
  logger?: Pick<Logger, 'warn'>,
): Promise<ScriptStep[]> {
  const full = path.resolve(baseDir, file);
  let text: string;
  try {
    text = await readFile(full, 'utf8');
  } catch (error) {
    throw new DataValidationError(
      `provider-mock: cannot read script_file ${full}: ${(error as Error).message}. Point script_file at a JSON or YAML file (relative paths resolve against the session's working directory)`,
      [{ path: 'script_file', message: 'cannot be read' }],
    );
  }
  // yaml is imported only for a YAML script: most sessions never read one, and it costs start-up.
  const parse: (text: string) => unknown = full.endsWith('.json') ? JSON.parse : (await import('yaml')).parse;
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new DataValidationError(
      `provider-mock: script_file ${full} is not valid: ${(error as Error).message}`,
      [{ path: 'script_file', message: 'is not valid JSON or YAML' }],
    );
  }
  const script =
    data !== null && typeof data === 'object' && !Array.isArray(data) && 'script' in data
      ? (data as { script: unknown }).script
      : data;
  assertConfig({ script }, `script in ${full}`);
  const read = readModuleConfig({ script }, { module: 'provider-mock', schema: CONFIG_SCHEMA, logger });
  return read.script as ScriptStep[];
}

/** Tokens as JSON length / 4 (core's bounded `stringifyJson`: any depth, never a RangeError). */
const estimate = (value: unknown): number => Math.floor(stringifyJson(value).length / 4);

/** A fresh ChatResponse for a (validated, non-error) step. `callPrefix` makes generated ids unique. */
export function stepResponse(step: ScriptStep, request: ChatRequest, callPrefix: string): ChatResponse {
  const s: ScriptStepObject = typeof step === 'string' ? { text: step } : step;
  const content: ContentBlock[] = [];
  if (s.thinking !== undefined) {
    const t = typeof s.thinking === 'string' ? { thinking: s.thinking } : s.thinking;
    content.push({
      type: 'thinking',
      thinking: t.thinking,
      ...(t.signature !== undefined && { signature: t.signature }),
    });
  }
  if (s.text !== undefined) content.push({ type: 'text', text: s.text });
  if (s.content !== undefined) content.push(...cloneData(s.content));
  const toolCalls: ToolCall[] | undefined = s.tool_calls?.map((call, k) => ({
    id: call.id ?? `${callPrefix}_${k + 1}`,
    name: call.name,
    arguments: cloneData(call.arguments ?? {}),
  }));
  const response: ChatResponse = {
    content,
    usage: usageFor(s.usage, request, content, toolCalls),
    finish_reason: s.finish_reason ?? (toolCalls?.length ? 'tool_calls' : 'stop'),
  };
  if (toolCalls !== undefined) response.tool_calls = toolCalls;
  if (s.metadata !== undefined) response.metadata = cloneData(s.metadata);
  return response;
}

/** Scripted usage, with missing counts estimated from the request and the response. */
export function usageFor(
  given: Partial<Usage> | undefined,
  request: ChatRequest,
  content: readonly ContentBlock[],
  toolCalls?: readonly ToolCall[],
): Usage {
  const input = given?.input_tokens ?? estimate(request.messages);
  const output = given?.output_tokens ?? estimate(content) + (toolCalls?.length ? estimate(toolCalls) : 0);
  return {
    ...given,
    input_tokens: input,
    output_tokens: output,
    total_tokens: given?.total_tokens ?? input + output,
  };
}
