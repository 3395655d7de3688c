/**
 * Reading a module package: its package.json, the `"amplifier"` field
 * (validated with ajv, unknown keys rejected) and the entry file that exports
 * `mount`. Pure file-system work, no imports of module code.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ModuleLoadError } from '../errors.js';
import type { ModuleType } from '../models.js';
import { checkData, formatDataErrors } from '../schemas.js';

/** The `"amplifier"` field of a module's package.json. */
export interface ModuleManifest {
  module: string;
  type: ModuleType;
  /** A file (`./dist/x.js`) or an export subpath (`./module`); default: the package's main export. */
  entry?: string;
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

/** Read and parse `<dir>/package.json`; undefined when there is none. Throws on invalid JSON. */
export function readPackageJson(dir: string): PackageJson | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(dir, 'package.json'), 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as PackageJson;
  } catch (error) {
    throw new ModuleLoadError(
      path.basename(dir),
      `${path.join(dir, 'package.json')} is not valid JSON: ${(error as Error).message}`,
      { code: 'MODULE_INVALID_MANIFEST', cause: error },
    );
  }
}

/**
 * The package's module declaration, or undefined when it has no `"amplifier"`
 * field. An invalid field throws a MODULE_INVALID_MANIFEST error naming the file.
 */
export function readModulePackage(
  dir: string,
  pkg: PackageJson | undefined = readPackageJson(dir),
): ModulePackage | undefined {
  if (pkg === undefined || pkg.amplifier === undefined) return undefined;
  const errors = checkData('module-manifest', pkg.amplifier);
  if (errors.length > 0) {
    const file = path.join(dir, 'package.json');
    throw new ModuleLoadError(
      typeof (pkg.amplifier as { module?: unknown })?.module === 'string'
        ? (pkg.amplifier as { module: string }).module
        : (pkg.name ?? path.basename(dir)),
      `Invalid "amplifier" field in ${file}:\n${formatDataErrors(errors.map((e) => ({ ...e, path: e.path ? `amplifier.${e.path}` : 'amplifier' })))}\nExpected: "amplifier": { "module": "<id>", "type": "tool" | "provider" | "orchestrator" | "context" | "hook" | "resolver", "entry"?: "./dist/index.js" }`,
      { code: 'MODULE_INVALID_MANIFEST' },
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
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The absolute path of the file that exports `mount`: `amplifier.entry` (a
 * file, or an export subpath), else `exports["."]`, else `main`, else
 * `index.js`. Throws a clear error when it does not exist (for example when
 * the package was not built).
 */
export function resolveEntry(
  found: ModulePackage,
  conditions: readonly string[] = ACTIVE_CONDITIONS,
): string {
  const { dir, pkg, manifest } = found;
  const candidates: string[] = [];
  if (manifest.entry !== undefined) {
    const viaExports = resolveExport(pkg.exports, manifest.entry, conditions);
    candidates.push(viaExports ?? manifest.entry);
  } else {
    const main = resolveExport(pkg.exports, '.', conditions) ?? pkg.main ?? 'index.js';
    candidates.push(main);
  }
  for (const candidate of candidates) {
    const file = path.resolve(dir, candidate);
    if (!file.startsWith(dir + path.sep)) {
      throw new ModuleLoadError(
        manifest.module,
        `Entry '${candidate}' of ${found.packageName} points outside its package (${dir})`,
      );
    }
    if (isFile(file)) return file;
  }
  throw new ModuleLoadError(
    manifest.module,
    `Entry file of ${found.packageName} not found: ${candidates.map((c) => path.resolve(dir, c)).join(', ')} (package at ${dir}). If it is a workspace package, build it first (pnpm build); otherwise reinstall it.`,
  );
}
