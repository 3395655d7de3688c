/**
 * From config `package` to a model: the package is found as the core loader
 * finds modules (installed in the session's project, seen from the loader's
 * `baseDir` and then its extra roots, i.e. the app's own dependencies), its
 * ESM entry imported, its factory called with `options`, and the factory's
 * provider asked for the model id. Naming a package runs its code: the same
 * trust as naming a module (README, "Trust").
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { errorMessage, findPackageDir } from '@amplifier/core';
import { type AiSdkModel, checkModel } from './spec.js';

type Json = Record<string, unknown>;

/** What makes models of one package: call it with a model id. */
export type ModelFactory = (modelId: string) => AiSdkModel;

/** Where packages are looked for: the project (`baseDir`) first, then `extraRoots`. */
export interface PackageRoots {
  baseDir: string;
  extraRoots?: readonly string[];
}

const CONDITIONS = ['import', 'node', 'default'];

/** The target of `exports['.']` for an ESM import (conditions `import`, `node`, `default`), or undefined. */
function exportTarget(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = exportTarget(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const map = value as Json;
  if (Object.hasOwn(map, '.')) return exportTarget(map['.']);
  for (const [key, target] of Object.entries(map)) {
    if (CONDITIONS.includes(key)) {
      const found = exportTarget(target);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The entry file of the package installed at `dir` (its `exports`, else `module`, else `main`, else index.js). */
export function packageEntry(dir: string): string {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Json;
  const target =
    (pkg.exports !== undefined ? exportTarget(pkg.exports) : undefined) ??
    (typeof pkg.module === 'string' ? pkg.module : undefined) ??
    (typeof pkg.main === 'string' ? pkg.main : undefined) ??
    'index.js';
  const file = path.resolve(dir, target);
  if (file !== dir && !file.startsWith(dir + path.sep)) {
    throw new Error(`the entry '${target}' of the package at ${dir} points outside it`);
  }
  return file;
}

/** Find `name` as the core loader finds a module's package: from `baseDir` up, then from each extra root. */
export function findModelPackage(name: string, roots: PackageRoots): string {
  const looked: string[] = [];
  for (const root of [roots.baseDir, ...(roots.extraRoots ?? [])]) {
    const dir = findPackageDir(name, root);
    if (dir !== undefined) return dir;
    looked.push(root);
  }
  throw new Error(
    `package '${name}' is not installed in the project (looked for node_modules/${name} from ${looked.join(', ')} and their parents); install it there: npm install ${name}`,
  );
}

function factoryNames(exports: Json): string[] {
  return Object.keys(exports).filter((k) => /^create[A-Z]/.test(k) && typeof exports[k] === 'function');
}

/**
 * The model factory of `name`: its `factory` export (default: its only
 * `create*` function) called once with `options`; each model id then comes
 * from the provider it returns (`provider.languageModel(id)`, else
 * `provider(id)`), checked to be a model of a supported spec version.
 */
export async function loadModelFactory(
  name: string,
  factory: string | undefined,
  options: Record<string, unknown>,
  roots: PackageRoots,
): Promise<ModelFactory> {
  const dir = findModelPackage(name, roots);
  let exports: Json;
  try {
    exports = (await import(pathToFileURL(packageEntry(dir)).href)) as Json;
  } catch (error) {
    throw new Error(`package '${name}' (${dir}) failed to load: ${errorMessage(error)}`);
  }
  let chosen = factory;
  if (chosen === undefined) {
    const names = factoryNames(exports);
    if (names.length !== 1) {
      throw new Error(
        names.length === 0
          ? `package '${name}' exports no create* function; name its factory with config factory`
          : `package '${name}' exports several factories (${names.join(', ')}); name one with config factory`,
      );
    }
    chosen = names[0]!;
  }
  const create = Object.hasOwn(exports, chosen) ? exports[chosen] : undefined;
  if (typeof create !== 'function') {
    throw new Error(
      `package '${name}' has no function export '${chosen}' (its factories: ${factoryNames(exports).join(', ') || 'none'})`,
    );
  }
  const provider = (create as (o: Json) => unknown)(options) as
    | ((id: string) => unknown)
    | { languageModel?: (id: string) => unknown };
  return (modelId) => {
    const make =
      typeof (provider as { languageModel?: unknown }).languageModel === 'function'
        ? (id: string) => (provider as { languageModel: (id: string) => unknown }).languageModel(id)
        : typeof provider === 'function'
          ? provider
          : undefined;
    if (make === undefined)
      throw new Error(`${name}.${chosen}() returned no provider (neither a function nor languageModel)`);
    return checkModel(make(modelId), `${name}.${chosen}()('${modelId}')`);
  };
}
