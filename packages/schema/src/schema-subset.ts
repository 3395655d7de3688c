/**
 * A validator for the common subset of JSON Schema (draft 2020-12), built
 * from closures in microseconds instead of ajv's generated code (milliseconds
 * per schema, tens for the first one in a process, plus loading ajv).
 * `schemas.ts` answers "valid" from it and asks ajv only for the errors of
 * invalid data, so the problems reported are always ajv's.
 *
 * Every keyword here decides exactly as ajv does with core's options (no
 * coercion, no defaults, no format validation, `unicodeRegExp`, code point
 * lengths): not only "valid" must agree, since `not`, `oneOf` and `if` turn a
 * "no" into a "yes". A schema using anything else (another keyword, a keyword
 * value of an unusual shape, `$id` or `$schema` below the root, a `$ref` that
 * is not a JSON pointer into a known document) is not built: the caller uses
 * ajv for it, as before.
 */

/** True when `value` is valid. */
export type SubsetCheck = (value: unknown) => boolean;

/** Keywords that never change validity (with `validateFormats: false`, `format` is one). */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  'format',
  '$defs',
  'definitions',
]);

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** Thrown while building when the schema leaves the subset. */
const OUTSIDE: unique symbol = Symbol('outside the subset');

const always: SubsetCheck = () => true;
const never: SubsetCheck = () => false;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function outside(): never {
  throw OUTSIDE;
}

function count(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) outside();
  return value;
}

function finite(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) outside();
  return value;
}

/** A value `===` can compare as ajv does for `enum` and `const` (objects use deep equality there). */
function primitive(value: unknown): value is string | number | boolean | null {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** ajv's `ucs2length`: the length in code points (a surrogate pair counts once). */
function codePoints(text: string): number {
  const n = text.length;
  let length = 0;
  let pos = 0;
  while (pos < n) {
    length++;
    const c = text.charCodeAt(pos++);
    if (c >= 0xd800 && c <= 0xdbff && pos < n && (text.charCodeAt(pos) & 0xfc00) === 0xdc00) pos++;
  }
  return length;
}

/** ajv's test for one JSON type (integer: `!(x % 1) && !isNaN(x)`, so Infinity is one). */
function typeTest(type: string): SubsetCheck {
  switch (type) {
    case 'null':
      return (v) => v === null;
    case 'array':
      return (v) => Array.isArray(v);
    case 'object':
      return isObject;
    case 'integer':
      return (v) => typeof v === 'number' && !(v % 1) && !Number.isNaN(v);
    case 'number':
      return (v) => typeof v === 'number';
    case 'string':
      return (v) => typeof v === 'string';
    default:
      return (v) => typeof v === 'boolean';
  }
}

function both(a: SubsetCheck, b: SubsetCheck): SubsetCheck {
  return (v) => a(v) && b(v);
}

/** Whether a key is one of `names` (a few names are compared, more go through a Set). */
function declaredTest(names: readonly string[]): (key: string) => boolean {
  switch (names.length) {
    case 0:
      return () => false;
    case 1: {
      const [a] = names as [string];
      return (key) => key === a;
    }
    case 2: {
      const [a, b] = names as [string, string];
      return (key) => key === a || key === b;
    }
    default: {
      if (names.length > 8) {
        const set = new Set(names);
        return (key) => set.has(key);
      }
      return (key) => names.includes(key);
    }
  }
}

/** One closure for every check of a list (each must pass). */
function every(checks: readonly SubsetCheck[]): SubsetCheck {
  switch (checks.length) {
    case 0:
      return always;
    case 1:
      return checks[0]!;
    case 2: {
      const [a, b] = checks as [SubsetCheck, SubsetCheck];
      return (v) => a(v) && b(v);
    }
    default:
      return (v) => {
        for (const check of checks) if (!check(v)) return false;
        return true;
      };
  }
}

/** A JSON pointer (`/$defs/name`) into `root`; `~1` and `~0` unescaped, nothing percent-encoded. */
function pointer(root: unknown, fragment: string): unknown {
  if (fragment === '') return root;
  if (!fragment.startsWith('/') || fragment.includes('%')) outside();
  let node: unknown = root;
  for (const raw of fragment.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !Object.hasOwn(node, key)) outside();
    node = node[key];
  }
  return node;
}

/** Where schema nodes come from: the root's document or one a `$ref` named. */
interface Document {
  readonly root: unknown;
  /** Absolute URI of the document (its `$id`), if it has one. */
  readonly uri: string | undefined;
}

/** The schema document at an absolute URI (without fragment), if there is one. */
export type DocumentLookup = (uri: string) => unknown;

class Builder {
  readonly #lookup: DocumentLookup;
  /** Built (or being built) nodes: a `$ref` cycle gets the pending closure. */
  readonly #built = new Map<unknown, SubsetCheck>();

  constructor(lookup: DocumentLookup) {
    this.#lookup = lookup;
  }

  node(schema: unknown, doc: Document): SubsetCheck {
    if (schema === true) return always;
    if (schema === false) return never;
    if (!isObject(schema)) return outside();
    const known = this.#built.get(schema);
    if (known !== undefined) return known;
    // Placeholder first, so a schema that refers to itself gets a closure that calls the final one.
    let final: SubsetCheck | undefined;
    this.#built.set(schema, (v) => final!(v));
    final = this.#keywords(schema, doc);
    this.#built.set(schema, final);
    return final;
  }

  #keywords(schema: Record<string, unknown>, doc: Document): SubsetCheck {
    let type: SubsetCheck | undefined;
    const any: SubsetCheck[] = [];
    const numbers: SubsetCheck[] = [];
    const strings: SubsetCheck[] = [];
    const arrays: SubsetCheck[] = [];
    const objects: SubsetCheck[] = [];
    let objectShape = false;
    for (const key of Object.keys(schema)) {
      const value = schema[key];
      switch (key) {
        case 'type':
          type = this.#type(value);
          break;
        case 'enum': {
          if (!Array.isArray(value) || value.length === 0 || !value.every(primitive)) outside();
          const allowed = value as readonly unknown[];
          any.push(allowed.length === 1 ? (v) => v === allowed[0] : (v) => allowed.includes(v));
          break;
        }
        case 'const': {
          if (!primitive(value)) outside();
          any.push((v) => v === value);
          break;
        }
        case 'minimum': {
          const limit = finite(value);
          numbers.push((v) => (v as number) >= limit);
          break;
        }
        case 'maximum': {
          const limit = finite(value);
          numbers.push((v) => (v as number) <= limit);
          break;
        }
        case 'exclusiveMinimum': {
          const limit = finite(value);
          numbers.push((v) => (v as number) > limit);
          break;
        }
        case 'exclusiveMaximum': {
          const limit = finite(value);
          numbers.push((v) => (v as number) < limit);
          break;
        }
        case 'multipleOf': {
          const divisor = finite(value);
          if (divisor <= 0) outside();
          numbers.push((v) => {
            const ratio = (v as number) / divisor;
            return ratio === Number.parseInt(String(ratio), 10);
          });
          break;
        }
        // A string has between ceil(length / 2) and length code points: count only in between.
        case 'minLength': {
          const limit = count(value);
          strings.push((v) => {
            const n = (v as string).length;
            return n >= limit && (n >= 2 * limit || codePoints(v as string) >= limit);
          });
          break;
        }
        case 'maxLength': {
          const limit = count(value);
          strings.push((v) => {
            const n = (v as string).length;
            return n <= limit || (n <= 2 * limit && codePoints(v as string) <= limit);
          });
          break;
        }
        case 'pattern': {
          if (typeof value !== 'string') outside();
          let regexp: RegExp;
          try {
            regexp = new RegExp(value, 'u');
          } catch {
            return outside();
          }
          strings.push((v) => regexp.test(v as string));
          break;
        }
        case 'items': {
          const item = this.node(value, doc);
          if (item !== always) {
            arrays.push((v) => {
              const list = v as readonly unknown[];
              for (let i = 0; i < list.length; i++) if (!item(list[i])) return false;
              return true;
            });
          }
          break;
        }
        case 'minItems': {
          const limit = count(value);
          arrays.push((v) => (v as readonly unknown[]).length >= limit);
          break;
        }
        case 'maxItems': {
          const limit = count(value);
          arrays.push((v) => (v as readonly unknown[]).length <= limit);
          break;
        }
        case 'minProperties': {
          const limit = count(value);
          objects.push((v) => Object.keys(v as object).length >= limit);
          break;
        }
        case 'maxProperties': {
          const limit = count(value);
          objects.push((v) => Object.keys(v as object).length <= limit);
          break;
        }
        case 'properties':
        case 'required':
        case 'additionalProperties':
          objectShape = true;
          break;
        case 'allOf':
        case 'anyOf':
        case 'oneOf': {
          if (!Array.isArray(value) || value.length === 0) outside();
          const branches = (value as unknown[]).map((branch) => this.node(branch, doc));
          if (key === 'allOf') any.push(every(branches));
          else if (key === 'anyOf') any.push((v) => branches.some((branch) => branch(v)));
          else {
            any.push((v) => {
              let passed = 0;
              for (const branch of branches) if (branch(v) && ++passed > 1) return false;
              return passed === 1;
            });
          }
          break;
        }
        case 'not': {
          const inner = this.node(value, doc);
          any.push((v) => !inner(v));
          break;
        }
        case 'if': {
          // Without then/else, ajv ignores `if` (and never compiles it).
          if (schema.then === undefined && schema.else === undefined) break;
          const condition = this.node(value, doc);
          const then = schema.then === undefined ? always : this.node(schema.then, doc);
          const otherwise = schema.else === undefined ? always : this.node(schema.else, doc);
          any.push((v) => (condition(v) ? then(v) : otherwise(v)));
          break;
        }
        case 'then':
        case 'else':
          // Built with `if`; without it ajv ignores them (a schema is still required).
          if (typeof value !== 'boolean' && !isObject(value)) outside();
          break;
        case '$ref':
          any.push(this.#ref(value, doc));
          break;
        case '$schema':
        case '$id':
          // Only at the root (hasNestedIdentity): the caller picked the draft and the base URI.
          break;
        default:
          if (!ANNOTATIONS.has(key)) outside();
      }
    }
    if (objectShape) objects.unshift(this.#objectShape(schema, doc));

    const number = every(numbers);
    const string = every(strings);
    const array = every(arrays);
    const object = every(objects);
    const checks: SubsetCheck[] = [];
    const single = typeof schema.type === 'string' ? schema.type : undefined;
    if (single !== undefined) {
      // One type: after its test only that type's keywords can apply.
      const group =
        single === 'object'
          ? object
          : single === 'string'
            ? string
            : single === 'array'
              ? array
              : single === 'number' || single === 'integer'
                ? number
                : always;
      checks.push(group === always ? type! : both(type!, group));
    } else {
      if (type !== undefined) checks.push(type);
      if (numbers.length + strings.length + arrays.length + objects.length > 0) {
        checks.push((v) => {
          if (typeof v === 'number') return number(v);
          if (typeof v === 'string') return string(v);
          if (Array.isArray(v)) return array(v);
          if (typeof v === 'object' && v !== null) return object(v);
          return true;
        });
      }
    }
    checks.push(...any);
    return every(checks);
  }

  /** `type`: one name or a non-empty list of names. */
  #type(value: unknown): SubsetCheck {
    const names = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(names) || names.length === 0) return outside();
    const tests: SubsetCheck[] = [];
    for (const name of names) {
      if (typeof name !== 'string' || !TYPES.has(name)) outside();
      tests.push(typeTest(name));
    }
    if (tests.length === 1) return tests[0]!;
    return (v) => tests.some((test) => test(v));
  }

  /** `properties`, `required` and `additionalProperties` (no `patternProperties`) in one pass. */
  #objectShape(schema: Record<string, unknown>, doc: Document): SubsetCheck {
    const { properties, required, additionalProperties } = schema;
    let names: string[] = [];
    let checks: SubsetCheck[] = [];
    if (properties !== undefined) {
      if (!isObject(properties)) outside();
      names = Object.keys(properties);
      // ajv leaves a `__proto__` key out of properties: too unusual to mirror.
      if (names.includes('__proto__')) outside();
      checks = names.map((name) => this.node(properties[name], doc));
    }
    let needed: readonly string[] = [];
    if (required !== undefined) {
      if (!Array.isArray(required) || !required.every((name) => typeof name === 'string')) outside();
      needed = required as string[];
    }
    let extra: SubsetCheck | undefined;
    if (additionalProperties !== undefined) {
      extra = this.node(additionalProperties, doc);
      if (extra === always) extra = undefined;
    }
    const n = names.length;
    const declared = declaredTest(names);
    const closed = extra === never;
    return (v) => {
      const object = v as Record<string, unknown>;
      for (let i = 0; i < needed.length; i++) if (object[needed[i]!] === undefined) return false;
      for (let i = 0; i < n; i++) {
        const item = object[names[i]!];
        if (item !== undefined && !checks[i]!(item)) return false;
      }
      if (extra !== undefined) {
        // `for...in`, as ajv's generated code: inherited enumerable keys count too.
        for (const key in object) {
          if (!declared(key) && (closed || !extra(object[key]))) return false;
        }
      }
      return true;
    };
  }

  /** `$ref`: `#<pointer>` in this document, or `<uri>#<pointer>` of a known document. */
  #ref(value: unknown, doc: Document): SubsetCheck {
    if (typeof value !== 'string') return outside();
    const hash = value.indexOf('#');
    const address = hash < 0 ? value : value.slice(0, hash);
    const fragment = hash < 0 ? '' : value.slice(hash + 1);
    let target = doc;
    if (address !== '') {
      let uri: string;
      try {
        uri = new URL(address, doc.uri).href;
      } catch {
        return outside();
      }
      if (uri !== doc.uri) {
        const root = this.#lookup(uri);
        if (root === undefined || hasNestedIdentity(root, true)) return outside();
        target = { root, uri };
      }
    }
    // Build the target now (a cycle gets the placeholder), so an unusable target is found here.
    return this.node(pointer(target.root, fragment), target);
  }
}

/** Nested `$id`, `$schema` or `$anchor` change how refs resolve: left to ajv. */
function hasNestedIdentity(node: unknown, root: boolean): boolean {
  if (Array.isArray(node)) return node.some((item) => hasNestedIdentity(item, false));
  if (!isObject(node)) return false;
  for (const key of Object.keys(node)) {
    if (!root && (key === '$id' || key === '$schema' || key === '$anchor')) return true;
    if (key === '$dynamicAnchor' || key === '$dynamicRef' || key === '$recursiveRef') return true;
    // Values under these keys are data (an `enum` may hold objects named `$id`), not schemas.
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
    if (hasNestedIdentity(node[key], false)) return true;
  }
  return false;
}

const noDocuments: DocumentLookup = () => undefined;

/**
 * Build the check of `schema` (`uri`: its base URI, from the root's `$id`), or
 * undefined when it uses anything outside the subset. `lookup` finds the other
 * schemas a `$ref` may name, by absolute URI.
 */
export function buildSubsetCheck(
  schema: unknown,
  uri?: string,
  lookup: DocumentLookup = noDocuments,
): SubsetCheck | undefined {
  try {
    if (hasNestedIdentity(schema, true)) return undefined;
    return new Builder(lookup).node(schema, { root: schema, uri });
  } catch (error) {
    // A schema nested too deeply to walk is left to ajv, which reports it as invalid.
    if (error === OUTSIDE || error instanceof RangeError) return undefined;
    throw error;
  }
}
