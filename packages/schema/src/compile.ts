/**
 * JSON Schema validation of any schema (draft 2020-12 by default, older drafts
 * when declared): tool input schemas, module configs. A schema within the common subset of JSON Schema (`schema-subset.ts`) is
 * checked by closures built in microseconds; ajv (loaded and compiled on first
 * need, its codegen costs milliseconds per schema) is asked only for the errors
 * of invalid data, so every problem reported is ajv's. Other schemas are
 * compiled with ajv right away, as before. Validators are cached per schema
 * object. A `$ref` may name core's shipped data schemas by their `$id`.
 */
import { createRequire } from 'node:module';
import {
  DATA_SCHEMA_BASE,
  DATA_SCHEMA_NAMES,
  type DataError,
  type DataSchemaName,
  DataValidationError,
  type JSONSchema,
  loadSchema,
} from '@amplifier/core';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { buildSubsetCheck } from './schema-subset.js';

// ajv is CommonJS: required on first use, so a process that validates only valid data never loads it.
const require = createRequire(import.meta.url);

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
/** Per draft: the ajv that also checks `format` (ajv-formats), made on first need. */
const formatAjvs = new Map<Draft, SchemaCompiler>();

/** Whether ajv has been loaded in this process (it is loaded on first need). */
export function ajvLoaded(): boolean {
  return (
    ajvInstance !== undefined ||
    ajv2019Instance !== undefined ||
    ajv07Instance !== undefined ||
    formatAjvs.size > 0
  );
}

/** The shared ajv (draft 2020-12, all errors, lenient about unknown keywords). */
export function sharedAjv(): Ajv2020 {
  if (ajvInstance === undefined) {
    const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    ajvInstance = new Ajv2020(AJV_OPTIONS);
    for (const name of DATA_SCHEMA_NAMES) {
      ajvInstance.addSchema(loadSchema(name));
    }
  }
  return ajvInstance;
}

type Draft = '2020-12' | '2019-09' | 'draft-07';

/** The draft a schema's declared `$schema` asks for (older drafts differ, e.g. tuple `items`). */
function draftOf(declared: unknown): Draft {
  if (typeof declared !== 'string' || /draft\/2020-12/.test(declared)) return '2020-12';
  if (/draft\/2019-09/.test(declared)) return '2019-09';
  if (/draft-0[4-7]/.test(declared)) return 'draft-07';
  return '2020-12';
}

type SchemaCompiler = { compile(schema: object): ValidateFunction };

function ajvOf(draft: Draft): SchemaCompiler {
  if (draft === '2020-12') return sharedAjv();
  if (draft === '2019-09') {
    if (ajv2019Instance === undefined) {
      const { Ajv2019 } = require('ajv/dist/2019.js') as typeof import('ajv/dist/2019.js');
      ajv2019Instance = new Ajv2019(AJV_OPTIONS);
    }
    return ajv2019Instance;
  }
  return draft07Ajv();
}

function draft07Ajv(): Ajv {
  if (ajv07Instance === undefined) {
    const { Ajv } = require('ajv') as typeof import('ajv');
    ajv07Instance = new Ajv(AJV_OPTIONS);
  }
  return ajv07Instance;
}

/**
 * An ajv of `draft` that validates `format` with ajv-formats' full set
 * (`uri`, `email`, `date-time`, `uuid`, `ipv4`...). A format ajv-formats does
 * not know is ignored, as JSON Schema says of unknown formats.
 */
function formatAjvOf(draft: Draft): SchemaCompiler {
  let instance = formatAjvs.get(draft);
  if (instance === undefined) {
    const options: Options = { ...AJV_OPTIONS, validateFormats: true, logger: false };
    const made =
      draft === '2020-12'
        ? new (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020(options)
        : draft === '2019-09'
          ? new (require('ajv/dist/2019.js') as typeof import('ajv/dist/2019.js')).Ajv2019(options)
          : new (require('ajv') as typeof import('ajv')).Ajv(options);
    const addFormats = require('ajv-formats') as (ajv: Ajv) => Ajv;
    addFormats(made as unknown as Ajv);
    instance = made;
    formatAjvs.set(draft, instance);
  }
  return instance;
}

/** A shipped data schema by its `$id`, for `$ref`s between them. */
function dataSchemaAt(uri: string): unknown {
  if (!uri.startsWith(DATA_SCHEMA_BASE) || !uri.endsWith('.json')) return undefined;
  const name = uri.slice(DATA_SCHEMA_BASE.length, -'.json'.length) as DataSchemaName;
  return DATA_SCHEMA_NAMES.includes(name) ? loadSchema(name) : undefined;
}

/**
 * A validator that recursed too deep (a recursive schema, `uniqueItems` or
 * `const` on data nested thousands of levels) reports the data as invalid
 * instead of throwing the stack overflow.
 */
function tooDeep(error: unknown): DataError[] {
  if (!(error instanceof RangeError)) throw error;
  return [{ path: '', message: `is nested too deeply to validate (${error.message}); flatten it` }];
}

/** A compiled validator for arbitrary data; returns every problem (empty when valid). */
export type DataValidator = (value: unknown) => DataError[];

const compiled = new WeakMap<object, DataValidator>();
const compiledWithFormats = new WeakMap<object, DataValidator>();

/** Options of `compileSchema`. */
export interface CompileOptions {
  /**
   * Check the `format` keyword (`uri`, `email`, `date-time`, `uuid`...) with
   * ajv-formats. Off by default: JSON Schema makes `format` an annotation,
   * and the kernel's own schemas do not depend on it.
   */
  formats?: boolean;
}

/**
 * Compile with ajv: the declared draft's rules, and a schema without `$schema`
 * that only compiles as draft-07 is accepted as such. Throws a
 * `DataValidationError` when the schema itself is invalid.
 */
function compileWithAjv(declared: unknown, schema: object, formats = false): ValidateFunction {
  const of = formats ? formatAjvOf : ajvOf;
  try {
    const draft = draftOf(declared);
    if (draft !== '2020-12' || declared !== undefined) return of(draft).compile(schema);
    try {
      return of('2020-12').compile(schema);
    } catch (error) {
      try {
        return of('draft-07').compile(schema);
      } catch {
        throw error;
      }
    }
  } catch (error) {
    throw new DataValidationError(`Invalid JSON Schema: ${(error as Error).message}`, [
      { path: '', message: (error as Error).message },
    ]);
  }
}

/**
 * Compile (once per schema object) a validator for a tool's input schema or
 * any other JSON Schema. Draft 2020-12 by default; a `$schema` naming draft-04
 * to draft-07 or 2019-09 is compiled with that draft's rules (tuple `items`,
 * `additionalItems`, `definitions`), and a schema without `$schema` that only
 * compiles as draft-07 is accepted as such. Throws a clear error when the
 * schema itself is invalid.
 */
export function compileSchema(schema: JSONSchema, options: CompileOptions = {}): DataValidator {
  const formats = options.formats === true;
  const cache = formats ? compiledWithFormats : compiled;
  let validator = cache.get(schema);
  if (validator !== undefined) return validator;
  const { $schema: declared, $id: _id, ...rest } = schema;
  // The subset closures ignore `format`: with formats on, ajv checks every value.
  const check =
    !formats && draftOf(declared) === '2020-12' ? buildSubsetCheck(rest, undefined, dataSchemaAt) : undefined;
  if (check === undefined) {
    const validate = compileWithAjv(declared, rest, formats);
    validator = (value) => {
      try {
        return validate(value) ? [] : formatAjvErrors(validate.errors);
      } catch (error) {
        return tooDeep(error);
      }
    };
  } else {
    // Within the subset ajv compiles the schema too; it is compiled when some data first fails.
    let validate: ValidateFunction | undefined;
    validator = (value) => {
      try {
        if (check(value)) return [];
        validate ??= compileWithAjv(declared, rest);
        return validate(value) ? [] : formatAjvErrors(validate.errors);
      } catch (error) {
        return tooDeep(error);
      }
    };
  }
  cache.set(schema, validator);
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
