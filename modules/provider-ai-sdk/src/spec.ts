/**
 * The part of the Vercel AI SDK's language model spec (`LanguageModelV3` of
 * `@ai-sdk/provider` 3.x, and `LanguageModelV4` of 4.x, whose calls and parts
 * the bridge uses are the same) that the bridge reads and writes, declared
 * structurally: the bridge has no runtime dependency on `@ai-sdk/provider`,
 * and a real `LanguageModelV3` is assignable to `AiSdkModel` (a test checks
 * it with the package's own type).
 */

/** `providerMetadata` of a part, `providerOptions` of a prompt part: per provider namespace, plain JSON. */
export type ProviderMetadata = Record<string, Record<string, unknown>>;

/** V4's `reasoning` call option values (Amplifier's `reasoning_effort` is passed when it is one). */
export const V4_REASONING: readonly string[] = [
  'provider-default',
  'none',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
];

/** The spec versions the bridge speaks. */
export const SUPPORTED_SPECS: readonly string[] = ['v3', 'v4'];

/** A prompt part of the standard prompt (`LanguageModelV3Prompt`). */
export type PromptPart =
  | { type: 'text'; text: string; providerOptions?: ProviderMetadata }
  | { type: 'reasoning'; text: string; providerOptions?: ProviderMetadata }
  | { type: 'file'; data: string | URL; mediaType: string; providerOptions?: ProviderMetadata }
  | {
      type: 'tool-call';
      toolCallId: string;
      toolName: string;
      input: unknown;
      providerOptions?: ProviderMetadata;
    }
  | {
      type: 'tool-result';
      toolCallId: string;
      toolName: string;
      output: { type: 'text'; value: string };
      providerOptions?: ProviderMetadata;
    };

/** One message of the standard prompt. */
export type PromptMessage =
  | { role: 'system'; content: string; providerOptions?: ProviderMetadata }
  | { role: 'user'; content: PromptPart[]; providerOptions?: ProviderMetadata }
  | { role: 'assistant'; content: PromptPart[]; providerOptions?: ProviderMetadata }
  | { role: 'tool'; content: PromptPart[]; providerOptions?: ProviderMetadata };

/** The call options the bridge sends (`LanguageModelV3CallOptions`, the keys it uses). */
export interface CallOptions {
  prompt: PromptMessage[];
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  responseFormat?: { type: 'text' } | { type: 'json'; schema?: Record<string, unknown>; name?: string };
  /** V4 only: the reasoning effort (`provider-default`, `none`, `minimal`, `low`, `medium`, `high`, `xhigh`). */
  reasoning?: string;
  tools?: Array<{
    type: 'function';
    name: string;
    description?: string;
    inputSchema: Record<string, unknown>;
  }>;
  toolChoice?: { type: 'auto' | 'none' | 'required' } | { type: 'tool'; toolName: string };
  providerOptions?: ProviderMetadata;
  headers?: Record<string, string | undefined>;
  abortSignal?: AbortSignal;
  includeRawChunks?: boolean;
}

/** `finish.usage` / the generate result's usage (nested since V3). */
export interface SpecUsage {
  inputTokens: {
    total: number | undefined;
    noCache?: number | undefined;
    cacheRead?: number | undefined;
    cacheWrite?: number | undefined;
  };
  outputTokens: { total: number | undefined; text?: number | undefined; reasoning?: number | undefined };
}

/** `finishReason` since V3: the unified reason and the provider's own. */
export interface SpecFinishReason {
  unified: string;
  raw?: string | undefined;
}

/** A stream part (the ones the bridge reads; unknown parts are ignored). */
export type StreamPart =
  | { type: 'text-start' | 'text-end' | 'reasoning-start'; id: string; providerMetadata?: ProviderMetadata }
  | { type: 'reasoning-end'; id: string; providerMetadata?: ProviderMetadata }
  | { type: 'text-delta' | 'reasoning-delta'; id: string; delta: string; providerMetadata?: ProviderMetadata }
  | { type: 'tool-input-start'; id: string; toolName: string; providerExecuted?: boolean }
  | { type: 'tool-input-delta'; id: string; delta: string }
  | { type: 'tool-input-end'; id: string }
  | {
      type: 'tool-call';
      toolCallId: string;
      toolName: string;
      input: string;
      providerExecuted?: boolean;
      providerMetadata?: ProviderMetadata;
    }
  | { type: 'stream-start'; warnings: unknown[] }
  | { type: 'response-metadata'; id?: string; modelId?: string; timestamp?: Date }
  | {
      type: 'finish';
      usage: SpecUsage;
      finishReason: SpecFinishReason | string;
      providerMetadata?: ProviderMetadata;
    }
  | { type: 'error'; error: unknown }
  | { type: string; [key: string]: unknown };

/** What `doStream` resolves to. */
export interface SpecStreamResult {
  stream: ReadableStream<StreamPart>;
  request?: { body?: unknown };
  response?: { headers?: Record<string, string> };
}

/** A content part of `doGenerate`'s result. */
export type ContentPart = { type: string; [key: string]: unknown };

/** What `doGenerate` resolves to. */
export interface SpecGenerateResult {
  content: ContentPart[];
  finishReason: SpecFinishReason | string;
  usage: SpecUsage;
  providerMetadata?: ProviderMetadata;
  warnings?: unknown[];
  response?: { id?: string; modelId?: string; headers?: Record<string, string> };
}

/**
 * A language model of the AI SDK spec: what `createMistral(...)('mistral-large-latest')`
 * returns. A `LanguageModelV3` (and a `LanguageModelV4`) is one.
 */
export interface AiSdkModel {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
  // biome-ignore lint/suspicious/noExplicitAny: the spec's own option type differs per version; the bridge builds a valid one
  doStream(options: any): PromiseLike<SpecStreamResult>;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  doGenerate(options: any): PromiseLike<SpecGenerateResult>;
}

/** Describe a value for a message: `a string`, `an object with keys a, b`. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return `${typeof value} ${JSON.stringify(value)?.slice(0, 40) ?? ''}`.trim();
  const keys = Object.keys(value).slice(0, 8);
  return `an object with keys ${keys.join(', ') || '(none)'}`;
}

/**
 * `value` as a model the bridge can call, or a TypeError saying what it is
 * instead: a spec version other than `v3`/`v4` (V2 has flat usage and a
 * string finish reason; V1 is older still) is refused with the versions of the
 * `@ai-sdk/*` packages that implement a supported one.
 */
export function checkModel(value: unknown, what: string): AiSdkModel {
  const model = value as Partial<AiSdkModel> | null | undefined;
  if (typeof model !== 'object' || model === null || typeof model.doStream !== 'function') {
    throw new TypeError(
      `${what} is not an AI SDK language model (expected an object with specificationVersion, doStream and doGenerate; got ${describe(value)})`,
    );
  }
  const version = model.specificationVersion;
  if (typeof version !== 'string' || !SUPPORTED_SPECS.includes(version)) {
    throw new TypeError(
      `${what} implements the AI SDK language model spec ${JSON.stringify(version)}; provider-ai-sdk speaks ${SUPPORTED_SPECS.join(' and ')} (the @ai-sdk/* packages of AI SDK 6 and 7, e.g. @ai-sdk/mistral 3.x or 4.x; AI SDK 5 packages implement v2): upgrade the package`,
    );
  }
  if (typeof model.doGenerate !== 'function') {
    throw new TypeError(`${what} (spec ${version}) has no doGenerate function`);
  }
  return model as AiSdkModel;
}
