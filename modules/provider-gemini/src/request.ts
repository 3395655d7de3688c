/**
 * The `generateContent` request body: contents and `systemInstruction`,
 * function declarations (JSON Schema turned into the OpenAPI subset Gemini
 * takes) and `toolConfig`, `generationConfig` (limits, sampling, stop
 * sequences, JSON output, `thinkingConfig`), `safetySettings`; and the
 * endpoint of a request (`/models/{model}:generateContent`, or
 * `:streamGenerateContent?alt=sse`).
 */
import { type ChatRequest, type JSONSchema, type Message, setOwn, type ToolChoice } from '@amplifier/core';
import { toContents } from './convert.js';
import { isGemini3 } from './models.js';

type Json = Record<string, unknown>;

/** Thinking budget per `reasoning_effort` on Gemini 2.5 (`-1`: the model decides). `none` turns thinking off. */
export const EFFORT_BUDGETS: Readonly<Record<string, number>> = {
  none: 0,
  minimal: 1024,
  low: 4096,
  medium: -1,
  high: -1,
  xhigh: -1,
  max: -1,
};

/** Gemini 3 `thinkingLevel` per `reasoning_effort` (it cannot be switched off; `none` is the lowest level). */
const EFFORT_LEVELS: Readonly<Record<string, string>> = {
  none: 'minimal',
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
  max: 'high',
};

export interface BodyOptions {
  model: string;
  /** The model takes `thinkingConfig` (its capabilities name `thinking`). */
  thinks: boolean;
  vertex: boolean;
  maxTokens: number | undefined;
  temperature: number | undefined;
  topP: number | undefined;
  thinkingBudget: number | undefined;
  thinkingLevel: string | undefined;
  includeThoughts: boolean;
  safetySettings: readonly Record<string, unknown>[];
  extraBody: Json;
}

/** The endpoint of a request under the base URL. */
export function endpoint(model: string, stream: boolean): string {
  const name = model.includes('/') ? model : `models/${model}`;
  return `/${name}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
}

/** Keywords of Gemini's Schema object (an OpenAPI 3.0 subset); anything else is left out (the API rejects unknown names). */
const SCHEMA_KEYS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);

/**
 * A JSON Schema as Gemini's Schema: local `$ref`s inlined (a cycle becomes an
 * open object), `type: [x, "null"]` and a null branch of `anyOf`/`oneOf` as
 * `nullable`, `oneOf` as `anyOf`, `const` as a one-value `enum`, unknown
 * keywords (`additionalProperties`, `$schema`...) left out.
 */
export function toGeminiSchema(schema: unknown, root: unknown = schema, seen: readonly unknown[] = []): Json {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return {};
  const node = schema as Json;
  if (typeof node.$ref === 'string') {
    const target = resolveRef(root, node.$ref);
    if (target === undefined || seen.includes(target)) return { type: 'object' };
    return toGeminiSchema(target, root, [...seen, target]);
  }
  const out: Json = {};
  const branches = (node.anyOf ?? node.oneOf) as unknown;
  if (Array.isArray(branches)) {
    const isNull = (b: unknown): boolean =>
      typeof b === 'object' && b !== null && (b as Json).type === 'null';
    const kept = branches.filter((b) => !isNull(b));
    const { anyOf: _a, oneOf: _o, ...rest } = node;
    if (kept.length === 1) {
      const merged = { ...toGeminiSchema(rest, root, seen), ...toGeminiSchema(kept[0], root, seen) };
      return kept.length < branches.length ? { ...merged, nullable: true } : merged;
    }
    if (kept.length < branches.length) out.nullable = true;
    out.anyOf = kept.map((b) => toGeminiSchema(b, root, seen));
  }
  let type = node.type;
  if (Array.isArray(type)) {
    const types = type.filter((t) => t !== 'null');
    if (types.length < type.length) out.nullable = true;
    type = types.length === 1 ? types[0] : undefined;
    if (types.length > 1) out.anyOf = types.map((t) => ({ type: t }));
  }
  if (typeof type === 'string') out.type = type;
  if (node.const !== undefined) out.enum = [node.const];
  for (const [key, value] of Object.entries(node)) {
    if (!SCHEMA_KEYS.has(key) || value === undefined || key === 'type' || key === 'anyOf') continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      const properties: Json = {};
      for (const [name, sub] of Object.entries(value as Json))
        setOwn(properties, name, toGeminiSchema(sub, root, seen));
      out.properties = properties;
    } else if (key === 'items') {
      out.items = toGeminiSchema(Array.isArray(value) ? value[0] : value, root, seen);
    } else out[key] = value;
  }
  if (out.type === undefined && out.anyOf === undefined && out.properties !== undefined) out.type = 'object';
  return out;
}

function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

/** A tool's parameters for `functionDeclarations`, or undefined for an object schema without properties. */
function parameters(schema: JSONSchema | undefined): Json | undefined {
  if (schema === undefined) return undefined;
  const converted = toGeminiSchema(schema);
  const props = converted.properties as Json | undefined;
  if (
    (converted.type === 'object' || converted.type === undefined) &&
    (props === undefined || Object.keys(props).length === 0)
  )
    return undefined;
  return converted;
}

function functionCallingConfig(choice: ToolChoice): Json {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'required') return { mode: 'ANY' };
  if (choice === 'none') return { mode: 'NONE' };
  return { mode: 'ANY', allowedFunctionNames: [choice.name] };
}

/**
 * `thinkingConfig` for the request, or undefined. Per request
 * `metadata.thinking_budget` / `metadata.include_thoughts` (Amplifier's keys)
 * and `reasoning_effort` win over config. Gemini 3 gets `thinkingLevel`
 * (unless a budget was asked for), 2.5 a `thinkingBudget`: never both.
 */
export function thinkingConfig(request: ChatRequest, options: BodyOptions): Json | undefined {
  const metadata = request.metadata ?? {};
  const effort = request.reasoning_effort;
  const metaBudget =
    typeof metadata.thinking_budget === 'number' ? Math.trunc(metadata.thinking_budget) : undefined;
  const includeThoughts =
    typeof metadata.include_thoughts === 'boolean' ? metadata.include_thoughts : options.includeThoughts;
  if (!options.thinks && metaBudget === undefined && effort === undefined) return undefined;
  const config: Json = {};
  const budget =
    metaBudget ??
    (effort !== undefined && !isGemini3(options.model) ? EFFORT_BUDGETS[effort] : undefined) ??
    options.thinkingBudget;
  if (isGemini3(options.model) && budget === undefined) {
    const level = effort !== undefined ? EFFORT_LEVELS[effort] : options.thinkingLevel;
    if (level !== undefined) config.thinkingLevel = level;
  } else if (budget !== undefined) config.thinkingBudget = budget;
  // Thoughts cannot be included when thinking is off.
  if (includeThoughts && config.thinkingBudget !== 0) config.includeThoughts = true;
  return Object.keys(config).length > 0 ? config : undefined;
}

/** The `generateContent` body for `request` (its messages already repaired). */
export function toWireBody(request: ChatRequest, messages: readonly Message[], options: BodyOptions): Json {
  const { systemInstruction, contents } = toContents(messages, {
    vertex: options.vertex,
    signCalls: isGemini3(options.model),
  });
  const body: Json = { contents };
  if (systemInstruction !== undefined) body.systemInstruction = systemInstruction;
  if (request.tools?.length) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => {
          const params = parameters(tool.parameters);
          return {
            name: tool.name,
            ...(tool.description !== undefined && { description: tool.description }),
            ...(params !== undefined && { parameters: params }),
          };
        }),
      },
    ];
  }
  if (request.tool_choice !== undefined && request.tools?.length)
    body.toolConfig = { functionCallingConfig: functionCallingConfig(request.tool_choice) };
  const generation: Json = {};
  const maxTokens = request.max_output_tokens ?? options.maxTokens;
  if (maxTokens !== undefined) generation.maxOutputTokens = maxTokens;
  const temperature = request.temperature ?? options.temperature;
  if (temperature !== undefined) generation.temperature = temperature;
  const topP = request.top_p ?? options.topP;
  if (topP !== undefined) generation.topP = topP;
  if (request.stop?.length) generation.stopSequences = request.stop;
  const format = request.response_format;
  if (format?.type === 'json' || format?.type === 'json_schema')
    generation.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') generation.responseSchema = toGeminiSchema(format.schema);
  const thinking = thinkingConfig(request, options);
  if (thinking !== undefined) generation.thinkingConfig = thinking;
  if (Object.keys(generation).length > 0) body.generationConfig = generation;
  if (options.safetySettings.length > 0) body.safetySettings = options.safetySettings;
  return { ...options.extraBody, ...body };
}
