/**
 * OpenAI's strict mode for a tool's JSON Schema (`tools[].strict`): every
 * object closed (`additionalProperties: false`) with all its properties
 * required, an optional property made nullable instead, and none of the
 * keywords strict mode refuses. `strictToolSchema` rewrites a schema that can
 * follow those rules and says why one cannot; `restore` takes the nulls it
 * made up back out of the model's arguments, so the tool sees what its own
 * schema describes.
 */
import { type JSONSchema, setOwn } from '@amplifier/core';

/** A strict copy of a schema and the way back for arguments, or why there is none. */
export type StrictToolSchema =
  | { ok: true; schema: JSONSchema; restore(args: Record<string, unknown>): Record<string, unknown> }
  | { ok: false; problem: string };

/** Keywords strict mode does not accept (OpenAI structured outputs, as of 2026). */
const REFUSED = [
  'allOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'prefixItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  '$dynamicRef',
  'propertyNames',
] as const;

/** Where the made-up nulls are: optional property names per object, and the plans below. */
interface Plan {
  optional?: Set<string>;
  properties?: Map<string, Plan>;
  items?: Plan;
  anyOf?: Plan[];
  ref?: string;
}

class Refused extends Error {}

/**
 * Rewrite `schema` for strict mode, or say (`problem`, with the JSON path)
 * why it cannot be: the provider then sends the tool with `strict: false`.
 * The root must be an object schema. The input is never changed.
 */
export function strictToolSchema(schema: JSONSchema): StrictToolSchema {
  const defs = new Map<string, Plan>();
  try {
    if (schema.type !== 'object') throw new Refused('the root must be an object schema (type: "object")');
    const out: JSONSchema = {};
    const plan = convert(schema, '', out, defs);
    for (const key of ['$defs', 'definitions'] as const) {
      const table = schema[key];
      if (!isObject(table)) continue;
      const converted: JSONSchema = {};
      for (const [name, node] of Object.entries(table)) {
        const target: JSONSchema = {};
        defs.set(`#/${key}/${name}`, convert(node, `${key}.${name}`, target, defs));
        converted[name] = target;
      }
      out[key] = converted;
    }
    return { ok: true, schema: out, restore: (args) => restore(args, plan, defs) as Record<string, unknown> };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, problem: error.message };
    throw error;
  }
}

/** Convert `node` (at `path`) into `out`; returns where its optional properties are. */
function convert(node: unknown, path: string, out: JSONSchema, defs: Map<string, Plan>): Plan {
  if (!isObject(node))
    throw new Refused(`${path || '(root)'}: a schema must be an object, got ${typeof node}`);
  const at = (key: string): string => (path === '' ? key : `${path}.${key}`);
  for (const key of REFUSED) {
    if (key in node) throw new Refused(`${at(key)}: strict mode does not accept ${key}`);
  }
  const plan: Plan = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$defs' || key === 'definitions' || key === 'properties' || key === 'required') continue;
    if (key === 'items') {
      if (!isObject(value)) throw new Refused(`${at('items')}: strict mode needs one schema for every item`);
      const items: JSONSchema = {};
      plan.items = convert(value, at('items'), items, defs);
      out.items = items;
    } else if (key === 'anyOf') {
      if (!Array.isArray(value)) throw new Refused(`${at('anyOf')}: must be a list of schemas`);
      const branches = value.map((branch, i) => {
        const target: JSONSchema = {};
        return { plan: convert(branch, `${at('anyOf')}[${i}]`, target, defs), target };
      });
      plan.anyOf = branches.map((b) => b.plan);
      out.anyOf = branches.map((b) => b.target);
    } else if (key === '$ref') {
      if (typeof value !== 'string' || !value.startsWith('#/')) {
        throw new Refused(`${at('$ref')}: strict mode only follows local references (#/$defs/...)`);
      }
      plan.ref = value;
      out.$ref = value;
    } else if (key === 'additionalProperties') {
      if (value !== false) throw new Refused(`${at(key)}: strict mode needs closed objects (false)`);
    } else {
      out[key] = value;
    }
  }
  const isObjectType = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
  if (isObjectType || 'properties' in node) closeObject(node, path, out, plan, defs);
  return plan;
}

/** Every property required, the optional ones nullable, no other property allowed. */
function closeObject(
  node: JSONSchema,
  path: string,
  out: JSONSchema,
  plan: Plan,
  defs: Map<string, Plan>,
): void {
  const properties = node.properties ?? {};
  if (!isObject(properties)) throw new Refused(`${path}.properties: must be an object`);
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const converted: JSONSchema = {};
  plan.properties = new Map();
  for (const [name, child] of Object.entries(properties)) {
    const target: JSONSchema = {};
    plan.properties.set(name, convert(child, path === '' ? name : `${path}.${name}`, target, defs));
    if (required.has(name)) {
      converted[name] = target;
    } else if (allowsNull(target)) {
      // null already means something to the tool: an optional property sent as null stays null.
      converted[name] = target;
    } else {
      converted[name] = nullable(target);
      plan.optional ??= new Set();
      plan.optional.add(name);
    }
  }
  out.properties = converted;
  out.required = Object.keys(converted);
  out.additionalProperties = false;
}

function allowsNull(schema: JSONSchema): boolean {
  const type = schema.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  return Array.isArray(schema.anyOf) && schema.anyOf.some((b) => isObject(b) && allowsNull(b));
}

/** `schema`, also accepting null. */
function nullable(schema: JSONSchema): JSONSchema {
  const { type } = schema;
  if (typeof type === 'string' && schema.enum === undefined && schema.const === undefined) {
    return { ...schema, type: [type, 'null'] };
  }
  if (Array.isArray(type) && schema.enum === undefined && schema.const === undefined) {
    return { ...schema, type: [...type, 'null'] };
  }
  if (Array.isArray(schema.anyOf) && Object.keys(schema).length === 1) {
    return { anyOf: [...schema.anyOf, { type: 'null' }] };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

/** `value` without the nulls strict mode made the model send for absent optional properties. */
function restore(value: unknown, plan: Plan | undefined, defs: Map<string, Plan>, depth = 0): unknown {
  if (plan === undefined || depth > 64) return value;
  if (plan.ref !== undefined) return restore(value, defs.get(plan.ref), defs, depth + 1);
  if (Array.isArray(value)) {
    return plan.items === undefined ? value : value.map((item) => restore(item, plan.items, defs, depth + 1));
  }
  if (!isObject(value)) return value;
  let out = value;
  if (plan.properties !== undefined) {
    out = {};
    for (const [key, item] of Object.entries(value)) {
      if (item === null && plan.optional?.has(key)) continue;
      setOwn(out, key, restore(item, plan.properties.get(key), defs, depth + 1));
    }
  }
  // A union's branches: the first that changes something decides (branches rarely share names).
  for (const branch of plan.anyOf ?? []) {
    const restored = restore(out, branch, defs, depth + 1);
    if (restored !== out) return restored;
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
