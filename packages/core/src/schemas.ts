/**
 * The kernel's data schemas (JSON Schema draft 2020-12, written in TypeScript
 * beside the types they derive, and shipped as `schemas/*.json`) and the one
 * check the kernel needs: is this mount plan, manifest, message or result
 * valid, and if not, what is wrong where. Core's schemas use a small set of
 * keywords (below); this file checks exactly those, as ajv does, and words
 * every problem the way `@amplifier/schema` words ajv's. Any other JSON Schema
 * (a tool's input schema, a module's config) is compiled by that kit.
 */
import { type DataError, DataValidationError } from './errors.js';
import { MODULE_MANIFEST_SCHEMA } from './loader/manifest.js';
import { CHAT_REQUEST_SCHEMA, CHAT_RESPONSE_SCHEMA, type JSONSchema, MESSAGE_SCHEMA } from './messages.js';
import { MOUNT_PLAN_SCHEMA } from './mount-plan.js';
import { HOOK_RESULT_SCHEMA, TOOL_RESULT_SCHEMA } from './results.js';

/** The data schemas that ship in `@amplifier/core/schemas/<name>.json`. */
export type DataSchemaName =
  | 'message'
  | 'chat-request'
  | 'chat-response'
  | 'tool-result'
  | 'hook-result'
  | 'mount-plan'
  | 'module-manifest';

/** Every `DataSchemaName`: the shipped schemas `checkData`, `assertData` and `loadSchema` accept. */
export const DATA_SCHEMA_NAMES: readonly DataSchemaName[] = [
  'message',
  'chat-request',
  'chat-response',
  'tool-result',
  'hook-result',
  'mount-plan',
  'module-manifest',
];

/** The `$id` prefix of the shipped schemas: `<DATA_SCHEMA_BASE><name>.json`. */
export const DATA_SCHEMA_BASE = 'https://amplifier-ts.dev/schemas/v1/';

/**
 * The keywords `checkData` decides on; annotations (`title`, `description`,
 * `default`, `$defs`, `$id`, `$schema`) change nothing. A shipped schema using
 * another keyword fails core's tests.
 */
export const DATA_SCHEMA_KEYWORDS: readonly string[] =
  'type properties required additionalProperties items enum const anyOf oneOf allOf if then else $ref minLength maxLength pattern minimum maximum exclusiveMinimum exclusiveMaximum'.split(
    ' ',
  );

const loaded = new Map<DataSchemaName, JSONSchema>();

/** The JSON Schema of a data type, as shipped in `schemas/<name>.json` (with its `$schema` and `$id`). */
export function loadSchema(name: DataSchemaName): JSONSchema {
  let schema = loaded.get(name);
  if (schema === undefined) {
    const body = {
      message: MESSAGE_SCHEMA,
      'chat-request': CHAT_REQUEST_SCHEMA,
      'chat-response': CHAT_RESPONSE_SCHEMA,
      'tool-result': TOOL_RESULT_SCHEMA,
      'hook-result': HOOK_RESULT_SCHEMA,
      'mount-plan': MOUNT_PLAN_SCHEMA,
      'module-manifest': MODULE_MANIFEST_SCHEMA,
    }[name];
    if (body === undefined) throw new TypeError(`loadSchema: no data schema named ${JSON.stringify(name)}`);
    schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: `${DATA_SCHEMA_BASE}${name}.json`,
      ...body,
    };
    loaded.set(name, schema);
  }
  return schema;
}

/** `pattern` keywords compiled once (unicode mode, as ajv's `unicodeRegExp`). */
const patterns = new Map<string, RegExp>();

function patternOf(source: string): RegExp {
  let pattern = patterns.get(source);
  if (pattern === undefined) {
    pattern = new RegExp(source, 'u');
    patterns.set(source, pattern);
  }
  return pattern;
}

/** Check `value` against a shipped schema; returns every problem (empty when valid). Never throws on deep data. */
export function checkData(name: DataSchemaName, value: unknown): DataError[] {
  const errors: DataError[] = [];
  try {
    check(loadSchema(name), value, '', { doc: name, errors });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return [{ path: '', message: `is nested too deeply to validate (${error.message}); flatten it` }];
  }
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.path}\u0000${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Throw a `DataValidationError` listing every problem when `value` does not match. */
export function assertData(name: DataSchemaName, value: unknown, what: string = name): void {
  const errors = checkData(name, value);
  if (errors.length > 0) {
    throw new DataValidationError(`Invalid ${what}:\n${formatDataErrors(errors)}`, errors);
  }
}

/** One line per error: `tools[1].config must be object` (root errors start with "(root)"). */
export function formatDataErrors(errors: readonly DataError[]): string {
  return errors.map((e) => `  - ${e.path || '(root)'} ${e.message}`).join('\n');
}

/** Where a check is: the document `$ref`s without a URI resolve in, and the problems so far. */
interface Scope {
  doc: DataSchemaName;
  errors: DataError[];
}

type Node = Record<string, unknown>;

/**
 * Check `value` at `path` against `schema`, pushing problems in ajv's order
 * (type, then `$ref`/`const`/`enum`/applicators, then the keywords of the
 * value's type). Returns whether it is valid.
 */
function check(schema: unknown, value: unknown, path: string, scope: Scope): boolean {
  if (schema === true) return true;
  if (schema === false) return fail(scope, path, 'boolean schema is false');
  const s = schema as Node;
  const before = scope.errors.length;
  const type = s.type;
  const typed =
    type === undefined || (Array.isArray(type) ? type.some((t) => isType(value, t)) : isType(value, type));
  if (!typed) fail(scope, path, `must be ${Array.isArray(type) ? type.join(' or ') : String(type)}`);
  if (typeof s.$ref === 'string') {
    const [doc, target] = resolve(s.$ref, scope.doc);
    check(target, value, path, { doc, errors: scope.errors });
  }
  if ('const' in s && !equal(value, s.const)) fail(scope, path, 'must be equal to constant');
  if (Array.isArray(s.enum) && !s.enum.some((v) => equal(value, v))) {
    fail(scope, path, `must be one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  if (Array.isArray(s.anyOf)) branches(s.anyOf, value, path, scope, (n) => n > 0);
  if (Array.isArray(s.oneOf) && !branches(s.oneOf, value, path, scope, (n) => n === 1)) {
    if (scope.errors.length === before) fail(scope, path, 'must match exactly one schema in oneOf');
  }
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) check(sub, value, path, scope);
  if (s.if !== undefined) {
    const passed = check(s.if, value, path, { doc: scope.doc, errors: [] });
    const next = passed ? s.then : s.else;
    if (next !== undefined) check(next, value, path, scope);
  }
  if (typed) checkTyped(s, value, path, scope);
  return scope.errors.length === before;
}

/** The keywords that apply to one type of value (numbers, strings, arrays, objects). */
function checkTyped(s: Node, value: unknown, path: string, scope: Scope): void {
  if (typeof value === 'number') {
    if (typeof s.maximum === 'number' && !(value <= s.maximum)) fail(scope, path, `must be <= ${s.maximum}`);
    if (typeof s.minimum === 'number' && !(value >= s.minimum)) fail(scope, path, `must be >= ${s.minimum}`);
    if (typeof s.exclusiveMaximum === 'number' && !(value < s.exclusiveMaximum))
      fail(scope, path, `must be < ${s.exclusiveMaximum}`);
    if (typeof s.exclusiveMinimum === 'number' && !(value > s.exclusiveMinimum))
      fail(scope, path, `must be > ${s.exclusiveMinimum}`);
  } else if (typeof value === 'string') {
    const length = typeof s.maxLength === 'number' || typeof s.minLength === 'number' ? codePoints(value) : 0;
    if (typeof s.maxLength === 'number' && length > s.maxLength)
      fail(scope, path, `must NOT have more than ${s.maxLength} characters`);
    if (typeof s.minLength === 'number' && length < s.minLength)
      fail(
        scope,
        path,
        s.minLength === 1 ? 'must not be empty' : `must NOT have fewer than ${s.minLength} characters`,
      );
    if (typeof s.pattern === 'string' && !patternOf(s.pattern).test(value))
      fail(scope, path, `must match pattern "${s.pattern}"`);
  } else if (Array.isArray(value)) {
    if (s.items !== undefined)
      for (const [i, item] of value.entries()) check(s.items, item, `${path}[${i}]`, scope);
  } else if (isObject(value)) {
    if (Array.isArray(s.required)) {
      for (const key of s.required as string[]) {
        if (!Object.hasOwn(value, key)) fail(scope, join(path, key), 'is required');
      }
    }
    const properties = isObject(s.properties) ? s.properties : {};
    const extra = s.additionalProperties;
    if (extra !== undefined && extra !== true) {
      for (const key of Object.keys(value)) {
        if (Object.hasOwn(properties, key)) continue;
        if (extra === false) fail(scope, join(path, key), 'is not allowed (unknown key)');
        else check(extra, value[key], join(path, key), scope);
      }
    }
    for (const key of Object.keys(properties)) {
      if (Object.hasOwn(value, key)) check(properties[key], value[key], join(path, key), scope);
    }
  }
}

/** `anyOf`/`oneOf`: the branch errors count only when the number of passing branches is not `ok`. */
function branches(
  list: unknown[],
  value: unknown,
  path: string,
  scope: Scope,
  ok: (n: number) => boolean,
): boolean {
  const errors: DataError[] = [];
  let passed = 0;
  for (const sub of list) if (check(sub, value, path, { doc: scope.doc, errors })) passed++;
  if (ok(passed)) return true;
  scope.errors.push(...errors);
  return false;
}

const resolved = new Map<string, [DataSchemaName, unknown]>();

/** `#/$defs/x` in the current document, or `<name>.json[#/pointer]` of another shipped one (cached). */
function resolve(ref: string, doc: DataSchemaName): [DataSchemaName, unknown] {
  const key = `${doc}\u0000${ref}`;
  let target = resolved.get(key);
  if (target === undefined) {
    target = resolveUncached(ref, doc);
    resolved.set(key, target);
  }
  return target;
}

function resolveUncached(ref: string, doc: DataSchemaName): [DataSchemaName, unknown] {
  const hash = ref.indexOf('#');
  const file = hash === -1 ? ref : ref.slice(0, hash);
  const pointer = hash === -1 ? '' : ref.slice(hash + 1);
  const name = (
    file === '' ? doc : file.replace(DATA_SCHEMA_BASE, '').replace(/\.json$/, '')
  ) as DataSchemaName;
  if (!DATA_SCHEMA_NAMES.includes(name))
    throw new Error(`schema ${doc}: $ref ${ref} names no shipped schema`);
  let target: unknown = loadSchema(name);
  for (const part of pointer.split('/').slice(1)) {
    target = (target as Node)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  if (target === undefined) throw new Error(`schema ${doc}: $ref ${ref} points at nothing`);
  return [name, target];
}

function fail(scope: Scope, path: string, message: string): false {
  scope.errors.push({ path, message });
  return false;
}

function isObject(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
    case 'string':
      return typeof value === type;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return false;
  }
}

/** JSON equality (`const`, `enum`): same type and value, objects key by key. */
function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => equal(v, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
}

/** `tools` + `1` -> `tools[1]`; `session` + `context` -> `session.context`; odd keys in `["..."]`. */
function join(path: string, key: string): string {
  let suffix = suffixes.get(key);
  if (suffix === undefined) {
    if (/^\d+$/.test(key)) suffix = `[${key}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(key)) suffix = `.${key}`;
    else suffix = `[${JSON.stringify(key)}]`;
    if (suffixes.size < 4096) suffixes.set(key, suffix);
  }
  return path === '' && suffix[0] === '.' ? key : path + suffix;
}

/** Path suffixes of the keys seen (bounded: outside data may hold any number of keys). */
const suffixes = new Map<string, string>();

/** The length in code points, as ajv counts for `minLength`/`maxLength` (a surrogate pair is one). */
function codePoints(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      length--;
      i++;
    }
  }
  return length;
}
