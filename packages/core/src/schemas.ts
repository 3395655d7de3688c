/**
 * JSON Schema validation with one shared ajv instance (draft 2020-12). The
 * schemas shipped in `schemas/*.json` are the single source of truth for the
 * data types; validators are compiled on first use and cached. Tool input
 * schemas are compiled once per schema object.
 */
import { createRequire } from 'node:module';
import type { ErrorObject, Options, ValidateFunction } from 'ajv';
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { type DataError, DataValidationError } from './errors.js';
import type { JSONSchema } from './messages.js';

/** The data schemas that ship in `@amplifier/core/schemas/<name>.json`. */
export type DataSchemaName =
  | 'message'
  | 'chat-request'
  | 'chat-response'
  | 'tool-result'
  | 'hook-result'
  | 'mount-plan'
  | 'module-manifest';

export const DATA_SCHEMA_NAMES: readonly DataSchemaName[] = [
  'message',
  'chat-request',
  'chat-response',
  'tool-result',
  'hook-result',
  'mount-plan',
  'module-manifest',
];

const SCHEMA_BASE = 'https://amplifier-ts.dev/schemas/v1/';
const requireJson = createRequire(import.meta.url);

const AJV_OPTIONS: Options = {
  allErrors: true,
  strict: false,
  allowUnionTypes: true,
  validateFormats: false,
  // Compiling the draft meta-schema costs tens of ms at start-up. The shipped schemas are checked
  // against it by the tests; a broken tool schema still fails to compile on its keywords.
  validateSchema: false,
};

let ajvInstance: Ajv2020 | undefined;
let ajv2019Instance: Ajv2019 | undefined;
let ajv07Instance: Ajv | undefined;

/** The shared ajv (draft 2020-12, all errors, lenient about unknown keywords). */
export function sharedAjv(): Ajv2020 {
  if (ajvInstance === undefined) {
    ajvInstance = new Ajv2020(AJV_OPTIONS);
    for (const name of DATA_SCHEMA_NAMES) {
      ajvInstance.addSchema(loadSchema(name));
    }
  }
  return ajvInstance;
}

type SchemaCompiler = { compile(schema: object): ValidateFunction };

/** The ajv for a schema's declared `$schema` (older drafts differ, e.g. tuple `items`). */
function ajvFor(declared: unknown): SchemaCompiler | undefined {
  if (typeof declared !== 'string' || /draft\/2020-12/.test(declared)) return undefined;
  if (/draft\/2019-09/.test(declared)) {
    ajv2019Instance ??= new Ajv2019(AJV_OPTIONS);
    return ajv2019Instance;
  }
  if (/draft-0[4-7]/.test(declared)) return draft07Ajv();
  return undefined;
}

function draft07Ajv(): Ajv {
  ajv07Instance ??= new Ajv(AJV_OPTIONS);
  return ajv07Instance;
}

/** The parsed JSON Schema of a data type (the file shipped in the package). */
export function loadSchema(name: DataSchemaName): JSONSchema {
  return requireJson(`../schemas/${name}.json`) as JSONSchema;
}

/** Check `value` against a shipped schema; returns every problem (empty when valid). */
export function checkData(name: DataSchemaName, value: unknown): DataError[] {
  const validate = sharedAjv().getSchema(`${SCHEMA_BASE}${name}.json`);
  if (validate === undefined) throw new Error(`schema ${name} is not registered`);
  return validate(value) ? [] : formatAjvErrors(validate.errors);
}

/** Throw a `DataValidationError` listing every problem when `value` does not match. */
export function assertData(name: DataSchemaName, value: unknown, what: string = name): void {
  const errors = checkData(name, value);
  if (errors.length > 0) {
    throw new DataValidationError(`Invalid ${what}:\n${formatDataErrors(errors)}`, errors);
  }
}

/** A compiled validator for arbitrary data; returns every problem (empty when valid). */
export type DataValidator = (value: unknown) => DataError[];

const compiled = new WeakMap<object, DataValidator>();

/**
 * Compile (once per schema object) a validator for a tool's input schema or
 * any other JSON Schema. Draft 2020-12 by default; a `$schema` naming draft-04
 * to draft-07 or 2019-09 is compiled with that draft's rules (tuple `items`,
 * `additionalItems`, `definitions`), and a schema without `$schema` that only
 * compiles as draft-07 is accepted as such. Throws a clear error when the
 * schema itself is invalid.
 */
export function compileSchema(schema: JSONSchema): DataValidator {
  let validator = compiled.get(schema);
  if (validator !== undefined) return validator;
  const { $schema: declared, $id: _id, ...rest } = schema;
  let validate: ValidateFunction;
  try {
    const ajv = ajvFor(declared);
    if (ajv !== undefined) {
      validate = ajv.compile(rest);
    } else {
      try {
        validate = sharedAjv().compile(rest);
      } catch (error) {
        if (declared !== undefined) throw error;
        try {
          validate = draft07Ajv().compile(rest);
        } catch {
          throw error;
        }
      }
    }
  } catch (error) {
    throw new DataValidationError(`Invalid JSON Schema: ${(error as Error).message}`, [
      { path: '', message: (error as Error).message },
    ]);
  }
  validator = (value) => (validate(value) ? [] : formatAjvErrors(validate.errors));
  compiled.set(schema, validator);
  return validator;
}

/** `/tools/2/config` -> `tools[2].config`. */
export function jsonPointerToPath(pointer: string): string {
  if (pointer === '') return '';
  let out = '';
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out;
}

function join(path: string, key: string): string {
  const child = jsonPointerToPath(`/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  if (path === '') return child;
  return child.startsWith('[') ? `${path}${child}` : `${path}.${child}`;
}

/** Turn ajv errors into `{path, message}` pairs worded for people (deduplicated). */
export function formatAjvErrors(errors: readonly ErrorObject[] | null | undefined): DataError[] {
  const out: DataError[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    if (error.keyword === 'if' || error.keyword === 'oneOf' || error.keyword === 'anyOf') continue;
    let path = jsonPointerToPath(error.instancePath);
    let message = error.message ?? 'is invalid';
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required') {
      path = join(path, String(params.missingProperty));
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      path = join(path, String(params.additionalProperty));
      message = 'is not allowed (unknown key)';
    } else if (error.keyword === 'enum') {
      message = `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    } else if (error.keyword === 'type') {
      message = `must be ${String(params.type).replace(/,/g, ' or ')}`;
    } else if (error.keyword === 'minLength' && params.limit === 1) {
      message = 'must not be empty';
    }
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path, message });
  }
  return out;
}

/** One line per error: `tools[1].config must be object` (root errors start with "(root)"). */
export function formatDataErrors(errors: readonly DataError[]): string {
  return errors.map((e) => `  - ${e.path || '(root)'} ${e.message}`).join('\n');
}
