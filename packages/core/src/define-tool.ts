/**
 * `defineTool`: a `Tool` whose input is typed from its schema: any Standard
 * Schema (zod 4, valibot, arktype...) or a plain JSON Schema. The Standard
 * Schema and Standard JSON Schema interfaces are declared here (a types-only
 * spec, standardschema.dev): core depends on no schema library.
 */
import type { ExecutionProfile, Tool, ToolCallOptions } from './contracts.js';
import { errorMessage, ModuleValidationError } from './errors.js';
import type { FromSchema } from './from-schema.js';
import type { JSONSchema } from './messages.js';
import { failureType, type ToolResult } from './results.js';

/** One problem a Standard Schema found: a message and where (`path`). */
export interface StandardSchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What `~standard.validate` returns: the value, or the issues. */
export type StandardSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardSchemaIssue> };

/** The Standard Schema V1 interface (validation; `types` is for inference only). */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
      options?: { readonly libraryOptions?: Record<string, unknown> | undefined } | undefined,
    ) => StandardSchemaResult<Output> | Promise<StandardSchemaResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/** The Standard JSON Schema V1 interface: the library's own JSON Schema converter. */
export interface StandardJSONSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** The type `execute` receives for input schema `S`: a Standard Schema's output, or `FromSchema<S>`. */
export type ToolInputOf<S> = S extends StandardSchemaV1<unknown, infer O> ? O : FromSchema<S>;

/** What `defineTool` takes: the tool's name and description, its `input` schema and `execute`. */
export interface ToolDefinition<S> {
  /** snake_case, unique among mounted tools. */
  readonly name: string;
  readonly description: string;
  /** A Standard Schema (zod 4, valibot, arktype...) or a JSON Schema object. */
  readonly input: S;
  /**
   * The JSON Schema the model sees, for a Standard Schema without the Standard
   * JSON Schema converter (`~standard.jsonSchema`). Default: the converter's.
   */
  readonly jsonSchema?: JSONSchema;
  readonly executionProfile?: ExecutionProfile;
  readonly aliases?: readonly string[];
  /** Ask providers with a strict mode to constrain the model's input to the schema (`Tool.strict`). */
  readonly strict?: boolean;
  /**
   * Runs a call with the validated input; what it returns is the call's
   * `output`. A throw (or a returned Error) is a failed call the model reads.
   */
  execute(input: ToolInputOf<S>, options: ToolCallOptions): unknown;
}

/**
 * Define a tool whose `execute` gets typed input. With a Standard Schema, the
 * model sees the library's own JSON Schema (`~standard.jsonSchema.input`, draft
 * 2020-12) and each call's input is validated with `~standard.validate` first:
 * issues go back to the model as a `ValidationError` result naming each path,
 * and `execute` gets the library's output (transforms and defaults applied).
 * With a JSON Schema, the type is `FromSchema` of it and the orchestrator
 * validates against it, as for any tool. Throws `ModuleValidationError` at
 * define time when no JSON Schema can be had.
 *
 * @example
 * ```ts
 * import { defineTool } from '@amplifier/core';
 * import { z } from 'zod';
 *
 * export const add = defineTool({
 *   name: 'add',
 *   description: 'Adds two numbers.',
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => a + b, // a and b are numbers
 * });
 * ```
 */
export function defineTool<const S extends StandardSchemaV1 | JSONSchema>(
  definition: ToolDefinition<S>,
): Tool {
  const { name, description, input, execute } = definition;
  const standard = isStandardSchema(input) ? input['~standard'] : undefined;
  const inputSchema =
    definition.jsonSchema ??
    (standard ? jsonSchemaOf(name, input as StandardSchemaV1) : (input as JSONSchema));
  return {
    name,
    description,
    inputSchema,
    ...(definition.executionProfile && { executionProfile: definition.executionProfile }),
    ...(definition.aliases && { aliases: definition.aliases }),
    ...(definition.strict !== undefined && { strict: definition.strict }),
    // Promise chains, not async/await: a call with a sync schema and a sync execute costs one tick.
    execute(raw, options) {
      const run = (value: unknown): Promise<ToolResult> =>
        Promise.resolve(execute(value as ToolInputOf<S>, options ?? {})).then(succeed);
      const settle = (checked: StandardSchemaResult<unknown>): Promise<ToolResult> =>
        checked.issues ? Promise.resolve(invalid(name, checked.issues)) : run(checked.value);
      try {
        if (standard === undefined) return run(raw);
        const checked = standard.validate(raw);
        return checked instanceof Promise ? checked.then(settle) : settle(checked);
      } catch (error) {
        return Promise.reject(error); // a throw of execute or validate is a rejection, never a sync throw
      }
    },
  };
}

function succeed(output: unknown): ToolResult {
  return { success: true, output };
}

/** The failure the model reads: every issue with its path, and what to do. */
function invalid(name: string, issues: ReadonlyArray<StandardSchemaIssue>): ToolResult {
  const details = issues.map((issue) => `${pathOf(issue) || '(input)'}: ${issue.message}`).join('; ');
  return {
    success: false,
    error: {
      type: failureType('TOOL_INPUT_INVALID'),
      message: `invalid input for tool '${name}': ${details}. The tool was not run; fix the arguments and call it again.`,
    },
  };
}

/** `a.b[0]`, as the orchestrator's JSON Schema errors name paths. */
function pathOf(issue: StandardSchemaIssue): string {
  let path = '';
  for (const segment of issue.path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    path += typeof key === 'number' ? `[${key}]` : path === '' ? String(key) : `.${String(key)}`;
  }
  return path;
}

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { '~standard'?: { validate?: unknown } } | null)?.['~standard'];
  return typeof props?.validate === 'function';
}

/** The library's JSON Schema of the input, without `$schema` (providers do not want it). */
function jsonSchemaOf(name: string, schema: StandardSchemaV1): JSONSchema {
  const props = schema['~standard'] as Partial<StandardJSONSchemaV1['~standard']> & { vendor: string };
  const convert = props.jsonSchema?.input;
  if (typeof convert !== 'function') {
    throw new ModuleValidationError(
      name,
      `defineTool '${name}': the ${props.vendor} schema has no JSON Schema converter (~standard.jsonSchema), so the model could not be told the input's shape`,
      {
        fix: `pass jsonSchema: { type: 'object', ... } to defineTool, or a schema that implements Standard JSON Schema (zod >= 4.2; valibot through toStandardJsonSchema() of @valibot/to-json-schema)`,
      },
    );
  }
  let converted: Record<string, unknown>;
  try {
    converted = convert.call(props.jsonSchema, { target: 'draft-2020-12' });
  } catch (error) {
    throw new ModuleValidationError(
      name,
      `defineTool '${name}': the ${props.vendor} schema cannot be converted to JSON Schema: ${errorMessage(error)}`,
      { cause: error, fix: 'use types JSON Schema can describe, or pass jsonSchema to defineTool' },
    );
  }
  const { $schema: _, ...rest } = converted;
  if (rest.type !== 'object') {
    throw new ModuleValidationError(
      name,
      `defineTool '${name}': a tool's input is an object, but the ${props.vendor} schema describes ${JSON.stringify(rest.type ?? 'no type')}`,
      { fix: 'make the input schema an object of named fields (z.object({ ... }), v.object({ ... }))' },
    );
  }
  return rest;
}
