/**
 * Reading a module package: its package.json, the `"amplifier"` field
 * (validated by its schema, unknown keys rejected) and the entry file that exports
 * `mount`. Pure file-system work, no imports of module code.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ModuleLoadError } from '../errors.js';
import type { FromSchema, SchemaOf } from '../from-schema.js';
import type { ModuleAlias } from '../module-types.js';
import { checkData, formatDataErrors } from '../schemas.js';

/** The JSON Schema of `ModuleManifest` (`schemas/module-manifest.json`). */
export const MODULE_MANIFEST_SCHEMA = {
  title: 'The "amplifier" field of a module\'s package.json',
  type: 'object',
  required: ['module', 'type'],
  additionalProperties: false,
  properties: {
    module: {
      type: 'string',
      pattern: '^[a-z0-9][a-z0-9._-]*$',
      maxLength: 214,
      description: 'The module id used in mount plans, e.g. tool-bash.',
    },
    type: {
      enum: ['orchestrator', 'context', 'provider', 'tool', 'hook', 'resolver'],
      description: 'Which mount point the module is for.',
    },
    entry: {
      type: 'string',
      minLength: 1,
      description:
        "File (./dist/x.js) or export subpath (./module) that exports mount; default: the package's main export.",
    },
    required: {
      type: 'boolean',
      description:
        'When true, a session never runs without this module: if it fails to load, mount or get ready, the session stops instead of going on without it (policy hooks such as hooks-approval declare it).',
    },
    aliases: {
      type: 'array',
      description:
        "Other module ids this module answers to (the ids of real Amplifier bundles, e.g. loop-streaming). An alias resolves only when no module has that id; an entry may give config defaults for the alias (the mount plan's config overrides them key by key) and a note saying how it differs from the module the id names elsewhere.",
      items: {
        anyOf: [
          { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]*$', maxLength: 214 },
          {
            type: 'object',
            required: ['id'],
            additionalProperties: false,
            properties: {
              id: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]*$', maxLength: 214 },
              config: {
                type: 'object',
                description:
                  "Config defaults when the module is loaded under this id; the plan's keys override them (shallow).",
              },
              note: {
                type: 'string',
                minLength: 1,
                description:
                  'How the module differs from what this id names elsewhere (shown by `amplifier modules list`).',
              },
            },
          },
        ],
      },
    } as SchemaOf<readonly (string | ModuleAlias)[]>,
    unavailable: {
      type: 'string',
      minLength: 1,
      description:
        'The module is a placeholder: loading it (by id or alias) fails with this reason. For ids real bundles use that this project does not provide yet.',
    },
  },
} as const;

/** The `"amplifier"` field of a module's package.json. */
export type ModuleManifest = FromSchema<typeof MODULE_MANIFEST_SCHEMA>;

/** The manifest's aliases, each as an object (`"x"` becomes `{ id: "x" }`). */
export function manifestAliases(manifest: ModuleManifest): ModuleAlias[] {
  return (manifest.aliases ?? []).map((alias) => (typeof alias === 'string' ? { id: alias } : alias));
}

export interface PackageJson {
  name?: string;
  version?: string;
  description?: string;
  main?: string;
  exports?: unknown;
  amplifier?: unknown;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** A package found on disk that declares itself as a module. */
export interface ModulePackage {
  manifest: ModuleManifest;
  packageName: string;
  version: string;
  description: string | undefined;
  /** Real path of the package directory. */
  dir: string;
  pkg: PackageJson;
}

/** The text of `<dir>/package.json`, or undefined when there is none. */
export function readPackageJsonText(dir: string): string | undefined {
  try {
    return readFileSync(path.join(dir, 'package.json'), 'utf8');
  } catch {
    return undefined;
  }
}

/** Parse package.json text; invalid JSON throws a MODULE_INVALID_MANIFEST error naming the file. */
export function parsePackageJson(dir: string, text: string): PackageJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidManifest(
      path.basename(dir),
      `${path.join(dir, 'package.json')} is not valid JSON: ${(error as Error).message}`,
      error,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidManifest(
      path.basename(dir),
      `${path.join(dir, 'package.json')} does not hold a JSON object`,
    );
  }
  return value as PackageJson;
}

/** Read and parse `<dir>/package.json`; undefined when there is none. Throws on invalid JSON. */
export function readPackageJson(dir: string): PackageJson | undefined {
  const text = readPackageJsonText(dir);
  return text === undefined ? undefined : parsePackageJson(dir, text);
}

function invalidManifest(moduleId: string, message: string, cause?: unknown): ModuleLoadError {
  return new ModuleLoadError(moduleId, message, {
    code: 'MODULE_INVALID_MANIFEST',
    ...(cause !== undefined && { cause }),
  });
}

/**
 * The package's module declaration, or undefined when it has no `"amplifier"`
 * field. An invalid field throws a MODULE_INVALID_MANIFEST error naming the
 * file and the JSON path of every problem (`amplifier.typo is not allowed`).
 */
export function readModulePackage(
  dir: string,
  pkg: PackageJson | undefined = readPackageJson(dir),
): ModulePackage | undefined {
  if (pkg === undefined || pkg.amplifier === undefined) return undefined;
  const errors = checkData('module-manifest', pkg.amplifier);
  if (errors.length > 0) {
    const declared = (pkg.amplifier as { module?: unknown } | null)?.module;
    const located = errors.map((e) => ({
      ...e,
      path:
        e.path === '' ? 'amplifier' : e.path.startsWith('[') ? `amplifier${e.path}` : `amplifier.${e.path}`,
    }));
    throw invalidManifest(
      typeof declared === 'string' ? declared : (pkg.name ?? path.basename(dir)),
      `Invalid "amplifier" field in ${path.join(dir, 'package.json')}${pkg.name ? ` (${pkg.name})` : ''}:\n${formatDataErrors(located)}\nExpected: "amplifier": { "module": "<id>", "type": "orchestrator" | "context" | "provider" | "tool" | "hook" | "resolver", "entry"?: "./dist/index.js", "required"?: true, "aliases"?: ["<id>" | { "id": "<id>", "config"?: {}, "note"?: "..." }], "unavailable"?: "<reason>" }`,
    );
  }
  return {
    manifest: pkg.amplifier as ModuleManifest,
    packageName: pkg.name ?? path.basename(dir),
    version: pkg.version ?? '0.0.0',
    description: pkg.description,
    dir,
    pkg,
  };
}

const ACTIVE_CONDITIONS = ['node', 'import', 'default'];

/** Pick a target from an `exports` value with Node's algorithm for the given conditions. */
function exportTarget(value: unknown, conditions: readonly string[]): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    for (const item of value) {
      const target = exportTarget(item, conditions);
      if (target !== undefined) return target;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (conditions.includes(key)) {
        const target = exportTarget(inner, conditions);
        if (target !== undefined) return target;
      }
    }
  }
  return undefined;
}

/** The target of export `subpath` ('.' or './x'), honouring sugar (`exports: "./x.js"`). */
function resolveExport(
  exportsField: unknown,
  subpath: string,
  conditions: readonly string[],
): string | undefined {
  if (exportsField === undefined || exportsField === null) return undefined;
  const isSubpathMap =
    typeof exportsField === 'object' &&
    !Array.isArray(exportsField) &&
    Object.keys(exportsField).some((k) => k.startsWith('.'));
  if (!isSubpathMap) return subpath === '.' ? exportTarget(exportsField, conditions) : undefined;
  return exportTarget((exportsField as Record<string, unknown>)[subpath], conditions);
}

function isFile(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isFile() === true;
}

/**
 * The absolute path of the file that exports `mount`: `amplifier.entry` (an
 * export subpath, else a file), else `exports["."]`, else `main` (with Node's
 * legacy `.js` / `/index.js` fallbacks), else `index.js`. Throws a clear error
 * when it does not exist (for example when the package was not built).
 */
export function resolveEntry(
  found: ModulePackage,
  conditions: readonly string[] = ACTIVE_CONDITIONS,
): string {
  const { dir, pkg, manifest } = found;
  const candidates: string[] = [];
  if (manifest.entry !== undefined) {
    candidates.push(resolveExport(pkg.exports, manifest.entry, conditions) ?? manifest.entry);
  } else {
    const viaExports = resolveExport(pkg.exports, '.', conditions);
    if (viaExports !== undefined) candidates.push(viaExports);
    else if (typeof pkg.main === 'string' && pkg.main !== '') {
      candidates.push(pkg.main, `${pkg.main}.js`, path.join(pkg.main, 'index.js'));
    } else candidates.push('index.js');
  }
  for (const candidate of candidates) {
    const file = path.resolve(dir, candidate);
    if (file !== dir && !file.startsWith(dir + path.sep)) {
      throw new ModuleLoadError(
        manifest.module,
        `Entry '${candidate}' of ${found.packageName} points outside its package (${dir})`,
        { code: 'MODULE_INVALID_MANIFEST' },
      );
    }
    if (isFile(file)) return file;
  }
  throw new ModuleLoadError(
    manifest.module,
    `Module '${manifest.module}': the entry file of ${found.packageName} does not exist: ${path.resolve(dir, candidates[0] ?? 'index.js')} (package at ${dir}). The package is probably not built: run its build (for a workspace package: pnpm --filter ${found.packageName} build), or reinstall it.`,
  );
}
