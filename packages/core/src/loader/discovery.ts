/**
 * Finding module packages without importing them (the oclif / Backstage
 * model): a package name is looked up by walking up `node_modules/<name>` from
 * a directory, as Node does, and taking the real path, which works with pnpm's
 * strict layout, npm's hoisting and plain folders. Discovery reads the declared
 * dependencies of each root plus `AMPLIFIER_MODULES` folders, and is cached
 * per process (checked against the roots' package.json and node_modules).
 *
 * Cost per declared dependency: one read of its package.json; only packages
 * whose text mentions `"amplifier"` are parsed and have their real path taken.
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import type { ModuleAlias } from '../module-types.js';
import {
  type ModulePackage,
  manifestAliases,
  type PackageJson,
  parsePackageJson,
  readModulePackage,
} from './manifest.js';

const realpath = realpathSync.native;

/** A package located on disk: its real directory and the text of its package.json. */
export interface LocatedPackage {
  /** Real path of the package directory. */
  dir: string;
  /** The directory as found (`.../node_modules/<name>`, possibly a symlink). */
  linkDir: string;
  text: string;
}

/**
 * The first `<dir>/node_modules/<name>/package.json` for `fromDir` and each
 * parent, like Node's resolver: the folder as found (possibly a symlink) and
 * the file's text (`null` when `onlyModules` and the file does not mention
 * `"amplifier"`). No realpath: discovery takes it only for module packages.
 */
function locatePackage(
  name: string,
  fromDir: string,
  onlyModules = false,
): { linkDir: string; text: string | null } | undefined {
  let dir = path.resolve(fromDir);
  for (;;) {
    const linkDir = path.join(dir, 'node_modules', name);
    const file = path.join(linkDir, 'package.json');
    const text = onlyModules ? readIfModule(file) : readText(file);
    if (text !== undefined) return { linkDir, text };
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

const MARKER = Buffer.from('"amplifier"');
let scratch: Buffer | undefined;

/**
 * A package.json's text if it mentions `"amplifier"`, `null` if it does not,
 * undefined if there is no such file. Reads into a reused buffer and decodes
 * only module candidates: most dependencies cost one open, read and close.
 */
function readIfModule(file: string): string | null | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    scratch ??= Buffer.allocUnsafe(64 * 1024);
    const size = readSync(fd, scratch, 0, scratch.length, 0);
    if (size === scratch.length) return readText(file) ?? null; // a big package.json: read it whole
    const bytes = scratch.subarray(0, size);
    return bytes.includes(MARKER) ? bytes.toString('utf8') : null;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Package `name` as Node would find it from `fromDir`: its real directory and package.json text. */
export function findPackage(name: string, fromDir: string): LocatedPackage | undefined {
  const located = locatePackage(name, fromDir);
  if (located === undefined) return undefined;
  try {
    return { dir: realpath(located.linkDir), linkDir: located.linkDir, text: located.text ?? '' };
  } catch {
    return undefined;
  }
}

/** Real path of the package directory of `name` as seen from `fromDir`, or undefined. */
export function findPackageDir(name: string, fromDir: string): string | undefined {
  return findPackage(name, fromDir)?.dir;
}

/** The nearest directory at or above `dir` holding a package.json (the project root), or undefined. */
export function findProjectRoot(dir: string): string | undefined {
  let current = path.resolve(dir);
  for (;;) {
    if (statSync(path.join(current, 'package.json'), { throwIfNoEntry: false })?.isFile()) return current;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** A problem met while scanning (an invalid manifest, a duplicate id, a missing folder). */
export interface DiscoveryProblem {
  path: string;
  message: string;
}

/** A module that answers to an alias: the alias entry and the package of the module. */
export interface AliasTarget {
  alias: ModuleAlias;
  package: ModulePackage;
}

/**
 * What a discovery scan found (`loader.scan()`): module id -> the package that
 * declares it, alias id -> the modules that answer to it, the problems met,
 * how many packages were examined and the roots whose dependencies were read.
 * Cached per process.
 */
export interface DiscoveryIndex {
  /** Module id -> the package that declares it (first found wins). */
  modules: Map<string, ModulePackage>;
  /**
   * Alias id -> the modules that declare it (of the packages in `modules`, in
   * discovery order). More than one is a conflict: resolving the alias fails.
   * An alias that is also a module id is listed but never used (the module wins).
   */
  aliases: Map<string, AliasTarget[]>;
  problems: DiscoveryProblem[];
  /** How many packages were examined. */
  scanned: number;
  /** The package roots whose declared dependencies were read (real paths). */
  roots: string[];
}

/** Add the package at `dir` (package.json `text`) to the index if it declares a module. */
function addPackage(index: DiscoveryIndex, dir: string, text: string): void {
  // Cheap filter: most dependencies are not modules and never get parsed.
  if (!text.includes('"amplifier"')) return;
  let found: ModulePackage | undefined;
  let realDir = dir;
  try {
    realDir = realpath(dir);
    const pkg: PackageJson = parsePackageJson(realDir, text);
    found = readModulePackage(realDir, pkg);
  } catch (error) {
    index.problems.push({ path: path.join(realDir, 'package.json'), message: errorMessage(error) });
    return;
  }
  if (found === undefined) return;
  const id = found.manifest.module;
  const existing = index.modules.get(id);
  if (existing === undefined) {
    index.modules.set(id, found);
  } else if (existing.dir !== found.dir) {
    index.problems.push({
      path: found.dir,
      message: `duplicate module id '${id}': ${found.packageName} (${found.dir}) is ignored; ${existing.packageName} (${existing.dir}) was found first`,
    });
  }
}

/**
 * Fill `index.aliases` from the modules found (only the package that won each
 * module id, so two copies of one module never conflict), and note each
 * alias two modules declare.
 */
function indexAliases(index: DiscoveryIndex): void {
  for (const found of index.modules.values()) {
    for (const alias of manifestAliases(found.manifest)) {
      if (alias.id === found.manifest.module) continue;
      const targets = index.aliases.get(alias.id);
      if (targets === undefined) index.aliases.set(alias.id, [{ alias, package: found }]);
      else if (!targets.some((t) => t.package === found)) targets.push({ alias, package: found });
    }
  }
  for (const [id, targets] of index.aliases) {
    if (targets.length < 2 || index.modules.has(id)) continue;
    index.problems.push({
      path: targets.map((t) => t.package.dir).join(', '),
      message: `alias '${id}' is declared by ${describeTargets(targets)}: a mount plan using '${id}' fails; use one of the module ids, or give the entry a source`,
    });
  }
}

/** `'loop-basic' (@amplifier/loop-basic) and 'loop-x' (loop-x)`, for messages. */
export function describeTargets(targets: readonly AliasTarget[]): string {
  const names = targets.map((t) => `'${t.package.manifest.module}' (${t.package.packageName})`);
  return names.length > 1
    ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`
    : (names[0] ?? '');
}

/** Names a root package declares (dependencies, optionalDependencies, and devDependencies if asked). */
function declaredDependencies(pkg: PackageJson, includeDev: boolean): Set<string> {
  const names = new Set<string>();
  for (const deps of [
    pkg.dependencies,
    pkg.optionalDependencies,
    includeDev ? pkg.devDependencies : undefined,
  ]) {
    if (typeof deps === 'object' && deps !== null) for (const name of Object.keys(deps)) names.add(name);
  }
  return names;
}

/** Scan the declared dependencies of the package at `root` into `index`. */
function scanRoot(index: DiscoveryIndex, root: string, includeDev: boolean): void {
  const text = readText(path.join(root, 'package.json'));
  if (text === undefined) return;
  let pkg: PackageJson;
  try {
    pkg = parsePackageJson(root, text);
  } catch (error) {
    index.problems.push({ path: path.join(root, 'package.json'), message: errorMessage(error) });
    return;
  }
  index.roots.push(root);
  for (const name of declaredDependencies(pkg, includeDev)) {
    const found = locatePackage(name, root, true);
    if (found === undefined) continue;
    index.scanned++;
    if (found.text !== null) addPackage(index, found.linkDir, found.text);
  }
}

/**
 * Scan an `AMPLIFIER_MODULES` entry: a module package itself (a folder with a
 * package.json), or a folder of packages (including `@scope/` folders), like
 * a node_modules directory.
 */
function scanSearchPath(index: DiscoveryIndex, searchPath: string): void {
  const dir = path.resolve(searchPath);
  const own = readText(path.join(dir, 'package.json'));
  if (own !== undefined) {
    index.scanned++;
    addPackage(index, dir, own);
    return;
  }
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    index.problems.push({
      path: searchPath,
      message: code === 'ENOENT' ? 'AMPLIFIER_MODULES entry does not exist' : errorMessage(error),
    });
    return;
  }
  for (const entry of entries) {
    if (entry.startsWith('.')) continue;
    const child = path.join(dir, entry);
    if (entry.startsWith('@')) {
      let scoped: string[] = [];
      try {
        scoped = readdirSync(child).sort();
      } catch {
        // not a folder
      }
      for (const name of scoped) scanChild(index, path.join(child, name));
    } else {
      scanChild(index, child);
    }
  }
}

function scanChild(index: DiscoveryIndex, dir: string): void {
  const text = readIfModule(path.join(dir, 'package.json'));
  if (text === undefined) return;
  index.scanned++;
  if (text !== null) addPackage(index, dir, text);
}

/** Where discovery looks. */
export interface DiscoveryRoots {
  /** The user's project (the nearest package.json at or above it): dependencies and devDependencies. */
  baseDir: string;
  /** Other package roots (the CLI's own directory): their dependencies. */
  extraRoots: readonly string[];
  /** `AMPLIFIER_MODULES` entries. */
  searchPaths: readonly string[];
}

interface CacheEntry {
  stamp: string;
  index: DiscoveryIndex;
}

const processCache = new Map<string, CacheEntry>();

function statStamp(file: string): string {
  const s = statSync(file, { throwIfNoEntry: false });
  return s === undefined ? '-' : `${s.mtimeMs}:${s.size}:${s.ino}`;
}

/**
 * What must change for an index to be stale: each root's package.json and
 * node_modules folder (size, mtime, inode), each search path's package.json or,
 * for a folder of packages, its entries (directory mtimes are too coarse to
 * see a package added in the same clock tick).
 */
function stampOf(roots: readonly string[], searchPaths: readonly string[]): string {
  let stamp = '';
  for (const root of roots) {
    stamp += `${statStamp(path.join(root, 'package.json'))}|${statStamp(path.join(root, 'node_modules'))}|`;
  }
  for (const searchPath of searchPaths) {
    const own = statStamp(path.join(searchPath, 'package.json'));
    stamp += own !== '-' ? `${own}|` : `${listNames(searchPath)?.join('/') ?? '-'}|`;
  }
  return stamp;
}

function listNames(dir: string): string[] | undefined {
  try {
    return readdirSync(dir);
  } catch {
    return undefined;
  }
}

function realpathOr(p: string): string {
  try {
    return realpath(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * The discovery index for these roots, from the process cache when no root
 * package.json, root node_modules folder or search path changed since the last
 * scan (`fresh` forces a new scan). The base directory stands for its project:
 * the nearest folder at or above it with a package.json.
 */
export function discoverModules(roots: DiscoveryRoots, options: { fresh?: boolean } = {}): DiscoveryIndex {
  const base = findProjectRoot(realpathOr(roots.baseDir));
  const extra = roots.extraRoots.map(realpathOr).filter((root) => root !== base);
  const all = base === undefined ? extra : [base, ...extra];
  const key = `${all.join('\0')}\0\0${roots.searchPaths.join('\0')}`;
  const stamp = stampOf(all, roots.searchPaths);
  const cached = processCache.get(key);
  if (!options.fresh && cached !== undefined && cached.stamp === stamp) return cached.index;

  const index: DiscoveryIndex = {
    modules: new Map(),
    aliases: new Map(),
    problems: [],
    scanned: 0,
    roots: [],
  };
  if (base !== undefined) scanRoot(index, base, true);
  for (const root of extra) scanRoot(index, root, false);
  for (const searchPath of roots.searchPaths) scanSearchPath(index, searchPath);
  indexAliases(index);
  processCache.set(key, { stamp, index });
  return index;
}

/** Forget every cached discovery index (tests, long-running apps after installs). */
export function clearDiscoveryCache(): void {
  processCache.clear();
}

/** `AMPLIFIER_MODULES` split on the platform's path delimiter (empty entries dropped). */
export function searchPathsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.AMPLIFIER_MODULES ?? '')
    .split(path.delimiter)
    .map((p) => p.trim())
    .filter((p) => p !== '');
}
