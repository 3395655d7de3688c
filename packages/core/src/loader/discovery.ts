/**
 * Finding module packages without importing them (the oclif / Backstage
 * model): a package name is looked up by walking up `node_modules/<name>` from
 * a directory, as Node does, and taking the real path, which works with pnpm's
 * strict layout, npm's hoisting and plain folders. Discovery reads the declared
 * dependencies of each root plus `AMPLIFIER_MODULES` folders, and is cached
 * per process (checked against the root package.json's mtime and size).
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import { type ModulePackage, type PackageJson, readModulePackage, readPackageJson } from './manifest.js';

/** Real path of the package directory of `name` as seen from `fromDir`, or undefined. */
export function findPackageDir(name: string, fromDir: string): string | undefined {
  let dir = path.resolve(fromDir);
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name);
    try {
      if (statSync(path.join(candidate, 'package.json')).isFile()) return realpathSync(candidate);
    } catch {
      // not here; keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** A problem met while scanning (an invalid manifest, a duplicate id). */
export interface DiscoveryProblem {
  path: string;
  message: string;
}

export interface DiscoveryIndex {
  /** Module id -> the package that declares it (first found wins). */
  modules: Map<string, ModulePackage>;
  problems: DiscoveryProblem[];
  /** How many packages were examined. */
  scanned: number;
}

/** Names a root package declares (dependencies, optionalDependencies, and devDependencies if asked). */
function declaredDependencies(pkg: PackageJson, includeDev: boolean): string[] {
  const names = new Set<string>([
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.optionalDependencies ?? {}),
    ...(includeDev ? Object.keys(pkg.devDependencies ?? {}) : []),
  ]);
  return [...names];
}

function addModule(index: DiscoveryIndex, dir: string): void {
  index.scanned++;
  let found: ModulePackage | undefined;
  try {
    found = readModulePackage(dir);
  } catch (error) {
    index.problems.push({ path: dir, message: errorMessage(error) });
    return;
  }
  if (found === undefined) return;
  const existing = index.modules.get(found.manifest.module);
  if (existing === undefined) {
    index.modules.set(found.manifest.module, found);
  } else if (existing.dir !== found.dir) {
    index.problems.push({
      path: dir,
      message: `duplicate module id '${found.manifest.module}': ${found.packageName} (${dir}) is ignored, ${existing.packageName} (${existing.dir}) was found first`,
    });
  }
}

/** Scan the declared dependencies of the package at `root` into `index`. */
function scanRoot(index: DiscoveryIndex, root: string, includeDev: boolean): void {
  let pkg: PackageJson | undefined;
  try {
    pkg = readPackageJson(root);
  } catch (error) {
    index.problems.push({ path: root, message: errorMessage(error) });
    return;
  }
  if (pkg === undefined) return;
  for (const name of declaredDependencies(pkg, includeDev)) {
    const dir = findPackageDir(name, root);
    if (dir !== undefined) addModule(index, dir);
  }
}

/**
 * Scan an `AMPLIFIER_MODULES` entry: a module package itself, or a folder of
 * packages (including `@scope/` folders), like a node_modules directory.
 */
function scanSearchPath(index: DiscoveryIndex, searchPath: string): void {
  let dir: string;
  try {
    dir = realpathSync(searchPath);
  } catch {
    index.problems.push({ path: searchPath, message: 'AMPLIFIER_MODULES entry does not exist' });
    return;
  }
  if (readPackageJsonSafe(dir) !== undefined) {
    addModule(index, dir);
    return;
  }
  for (const entry of listDirs(dir)) {
    const child = path.join(dir, entry);
    if (entry.startsWith('@')) {
      for (const scoped of listDirs(child)) addModule(index, realpathOr(path.join(child, scoped)));
    } else if (!entry.startsWith('.')) {
      addModule(index, realpathOr(child));
    }
  }
}

function readPackageJsonSafe(dir: string): PackageJson | undefined {
  try {
    return readPackageJson(dir);
  } catch {
    return undefined;
  }
}

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() || d.isSymbolicLink())
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}

function realpathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Where discovery looks. */
export interface DiscoveryRoots {
  /** The user's project: its dependencies and devDependencies. */
  baseDir: string;
  /** Other package roots (the CLI's own directory): their dependencies. */
  extraRoots: readonly string[];
  /** `AMPLIFIER_MODULES` folders. */
  searchPaths: readonly string[];
}

interface CacheEntry {
  stamp: string;
  index: DiscoveryIndex;
}

const processCache = new Map<string, CacheEntry>();

function stampOf(dirs: readonly string[]): string {
  return dirs
    .map((dir) => {
      try {
        const s = statSync(path.join(dir, 'package.json'));
        return `${s.mtimeMs}:${s.size}`;
      } catch {
        try {
          return `d${statSync(dir).mtimeMs}`;
        } catch {
          return '-';
        }
      }
    })
    .join('|');
}

/**
 * The discovery index for these roots, from the process cache when no root
 * package.json (or search folder) changed since the last scan.
 */
export function discoverModules(roots: DiscoveryRoots, options: { fresh?: boolean } = {}): DiscoveryIndex {
  const base = realpathOr(roots.baseDir);
  const extra = roots.extraRoots.map(realpathOr);
  const key = JSON.stringify([base, extra, roots.searchPaths]);
  const stamp = stampOf([base, ...extra, ...roots.searchPaths]);
  const cached = processCache.get(key);
  if (!options.fresh && cached !== undefined && cached.stamp === stamp) return cached.index;

  const index: DiscoveryIndex = { modules: new Map(), problems: [], scanned: 0 };
  scanRoot(index, base, true);
  for (const root of extra) if (root !== base) scanRoot(index, root, false);
  for (const searchPath of roots.searchPaths) scanSearchPath(index, searchPath);
  processCache.set(key, { stamp, index });
  return index;
}

/** Forget every cached discovery index (tests, long-running apps after installs). */
export function clearDiscoveryCache(): void {
  processCache.clear();
}

/** `AMPLIFIER_MODULES` split on the platform's path delimiter (empty entries dropped). */
export function searchPathsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.AMPLIFIER_MODULES ?? '').split(path.delimiter).filter((p) => p.trim() !== '');
}
