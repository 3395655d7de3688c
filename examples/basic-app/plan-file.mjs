/**
 * Read a mount plan from a YAML or JSON file and expand `${VAR}` and
 * `${VAR:default}` in its string values. Core takes a plan as a plain object
 * and leaves files and variables to the app; this is that part of the app.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}/g;

/**
 * Replace `${NAME}` and `${NAME:default}` in every string of `value` (objects and
 * arrays are walked, keys are left alone). Variables come from `vars`; an empty
 * value counts as set. Throws one error listing every variable that has neither
 * a value nor a default, with the path of the string that uses it.
 * @param {unknown} value
 * @param {Record<string, string | undefined>} vars
 * @returns {unknown}
 */
export function expandVariables(value, vars) {
  const missing = [];
  const walk = (node, path) => {
    if (typeof node === 'string') {
      return node.replace(VARIABLE, (whole, name, fallback) => {
        const found = vars[name];
        if (found !== undefined) return found;
        if (fallback !== undefined) return fallback;
        missing.push(`${name} (at ${path || '(root)'})`);
        return whole;
      });
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, `${path}[${i}]`));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node).map(([key, item]) => [key, walk(item, path ? `${path}.${key}` : key)]),
      );
    }
    return node;
  };
  const expanded = walk(value, '');
  if (missing.length > 0) {
    throw new Error(
      `The mount plan uses variables that are not set and have no default: ${missing.join(', ')}. ` +
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the plan syntax, shown to the user
        'Set them in the environment or write ${NAME:default}.',
    );
  }
  return expanded;
}

/**
 * Load a mount plan file (`.yaml`, `.yml` or `.json`) and expand its variables.
 * The result is a plain object for `new AmplifierSession(plan)`, which validates it.
 * @param {string} file
 * @param {Record<string, string | undefined>} [vars] default: `process.env`
 * @returns {Promise<Record<string, unknown>>}
 */
export async function loadPlan(file, vars = process.env) {
  const text = await readFile(file, 'utf8');
  let data;
  try {
    data = extname(file) === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(`Cannot parse the mount plan ${file}: ${error instanceof Error ? error.message : error}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new Error(`The mount plan ${file} must be a mapping with a 'session' section`);
  }
  return /** @type {Record<string, unknown>} */ (expandVariables(data, vars));
}
