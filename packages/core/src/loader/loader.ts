/**
 * ModuleLoader: from a module id to a mountable module. Resolution order: the
 * mounted `module-source-resolver`; the source hint (path, `file:` URL or
 * package name); the conventional names `@amplifier/<id>` and
 * `amplifier-module-<id>` (fast path); then discovery over declared
 * dependencies and `AMPLIFIER_MODULES`. Checks the declared type against the
 * mount point and the module's `@amplifier/core` peer range against the
 * running core; imports by file URL and checks the exports by shape.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import semver from 'semver';
import type {
  LoadedModule,
  LoadOptions,
  Logger,
  ModuleExports,
  ModuleLoaderLike,
  ModuleSourceResolver,
} from '../contracts.js';
import type { Coordinator } from '../coordinator.js';
import { AmplifierError, errorMessage, ModuleLoadError, ModuleNotFoundError } from '../errors.js';
import { defaultLogger } from '../logger.js';
import { type ModuleInfo, type ModuleType, TYPE_TO_MOUNT_POINT } from '../models.js';
import { VERSION } from '../version.js';
import { type DiscoveryIndex, discoverModules, findPackageDir, searchPathsFromEnv } from './discovery.js';
import { type ModulePackage, readModulePackage, readPackageJson, resolveEntry } from './manifest.js';

export interface ModuleLoaderOptions {
  /** The project modules are resolved from. Default: `process.cwd()`. */
  baseDir?: string;
  /** Other package roots whose dependencies are discovered too (an app's own directory). */
  extraRoots?: readonly string[];
  /** Folders of module packages. Default: `AMPLIFIER_MODULES` (path-delimiter separated). */
  searchPaths?: readonly string[];
  /** For the mounted `module-source-resolver`. */
  coordinator?: Coordinator;
  logger?: Logger;
  /** The core version peer ranges are checked against. Default: this core's version. */
  coreVersion?: string;
}

/** Where a module was found, before it is imported. */
export interface ResolvedModule {
  id: string;
  /** Absolute path of the entry file. */
  entry: string;
  /** The package, when the module came from one (plain folders and files have none). */
  package?: ModulePackage;
  /** How it was found, for messages (`source hint`, `@amplifier/tool-bash`, `discovery`, ...). */
  via: string;
}

const CORE_PACKAGE = '@amplifier/core';

function isPathLike(hint: string): boolean {
  return hint.startsWith('file:') || hint.startsWith('.') || path.isAbsolute(hint) || hint.startsWith('~');
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

export class ModuleLoader implements ModuleLoaderLike {
  readonly baseDir: string;
  readonly extraRoots: readonly string[];
  readonly searchPaths: readonly string[];
  readonly #coordinator: Coordinator | undefined;
  readonly #logger: Logger;
  readonly #coreVersion: string;
  /** Imported entry namespaces, by entry path: each module file is imported once. */
  readonly #imported = new Map<string, Promise<ModuleExports>>();

  constructor(options: ModuleLoaderOptions = {}) {
    this.baseDir = path.resolve(options.baseDir ?? process.cwd());
    this.extraRoots = options.extraRoots ?? [];
    this.searchPaths = options.searchPaths ?? searchPathsFromEnv();
    this.#coordinator = options.coordinator;
    this.#logger = options.logger ?? defaultLogger;
    this.#coreVersion = options.coreVersion ?? VERSION;
  }

  /**
   * Resolve, check and import module `id`. The result mounts with `config`;
   * loading the same id again with another config gives another module bound
   * to that config (the code is imported once).
   */
  async load(
    id: string,
    config: Record<string, unknown> = {},
    options: LoadOptions = {},
  ): Promise<LoadedModule> {
    const resolved = await this.resolve(id, options);
    const found = resolved.package;
    if (found !== undefined) {
      this.#checkType(id, found, options.type);
      this.#checkPeerRange(id, found);
    }
    const exports = await this.#import(id, resolved.entry);
    const type = found?.manifest.type ?? options.type;
    const loaded: LoadedModule = {
      id,
      type,
      mount: async (coordinator) => (await exports.mount(coordinator, config)) ?? undefined,
      ...(found && { packageName: found.packageName, version: found.version, path: found.dir }),
    };
    if (typeof exports.onSessionReady === 'function') {
      const ready = exports.onSessionReady;
      loaded.onSessionReady = async (coordinator) => {
        await ready(coordinator);
      };
    }
    return loaded;
  }

  /** Find module `id` without importing it. Throws ModuleNotFoundError naming every place looked. */
  async resolve(id: string, options: { source?: string } = {}): Promise<ResolvedModule> {
    const searched: string[] = [];
    let resolverError: unknown;
    const resolver = this.#coordinator?.get('module-source-resolver') as ModuleSourceResolver | undefined;
    if (resolver !== undefined) {
      try {
        const source = await resolver.resolve(
          id,
          options.source === undefined ? {} : { sourceHint: options.source },
        );
        const location = await source.resolve();
        return this.#fromPath(id, location, 'module-source-resolver');
      } catch (error) {
        if (!(AmplifierError.is(error) && error.code === 'MODULE_NOT_FOUND')) throw error;
        resolverError = error;
        searched.push(`module-source-resolver: ${errorMessage(error)}`);
      }
    } else {
      searched.push('module-source-resolver: none mounted');
    }

    if (options.source !== undefined) {
      const hint = options.source;
      if (isPathLike(hint)) return this.#fromPath(id, hint, `source '${hint}'`);
      const dir = findPackageDir(hint, this.baseDir);
      if (dir !== undefined) return this.#fromPackageDir(id, dir, `source '${hint}'`);
      searched.push(`source '${hint}': package not installed under ${this.baseDir}`);
    }

    for (const name of [`@amplifier/${id}`, `amplifier-module-${id}`]) {
      const dir = findPackageDir(name, this.baseDir);
      if (dir !== undefined) {
        const found = readModulePackage(dir);
        if (found !== undefined && found.manifest.module === id) return this.#fromPackage(found, name);
      }
      searched.push(`${name}: not in node_modules of ${this.baseDir} or its parents`);
    }

    const index = this.#index();
    const found = index.modules.get(id);
    if (found !== undefined) return this.#fromPackage(found, 'discovery');
    searched.push(
      `declared dependencies of ${[this.baseDir, ...this.extraRoots].map((d) => path.join(d, 'package.json')).join(', ')} (${index.scanned} packages, none declares "amplifier": { "module": "${id}" })`,
    );
    searched.push(
      this.searchPaths.length > 0
        ? `AMPLIFIER_MODULES: ${this.searchPaths.join(path.delimiter)}`
        : 'AMPLIFIER_MODULES: not set',
    );
    if (resolverError !== undefined) throw resolverError;
    throw new ModuleNotFoundError(
      id,
      `Module '${id}' not found.\nLooked in:\n${searched.map((s) => `  - ${s}`).join('\n')}\nFix: npm install @amplifier/${id}   (or add { source: "<path or package>" } to its mount plan entry)`,
      searched,
    );
  }

  /** Every module the loader can find (id, type, package, version, path), sorted by id. */
  async discover(): Promise<ModuleInfo[]> {
    const index = this.#index();
    for (const problem of index.problems) this.#logger.warn(`${problem.path}: ${problem.message}`);
    return [...index.modules.values()]
      .map((found) => ({
        id: found.manifest.module,
        type: found.manifest.type,
        name: found.packageName,
        version: found.version,
        path: found.dir,
        mount_point: TYPE_TO_MOUNT_POINT[found.manifest.type],
        ...(found.description !== undefined && { description: found.description }),
      }))
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  /** The raw discovery result, including invalid manifests and duplicate ids. */
  scan(options: { fresh?: boolean } = {}): DiscoveryIndex {
    return discoverModules(
      { baseDir: this.baseDir, extraRoots: this.extraRoots, searchPaths: this.searchPaths },
      options,
    );
  }

  /** Nothing to undo: the loader changes no global resolution state. */
  cleanup(): void {}

  #index(): DiscoveryIndex {
    return this.scan();
  }

  #fromPath(id: string, location: string, via: string): ResolvedModule {
    let target = location.startsWith('file:') ? fileURLToPath(location) : location;
    if (target.startsWith('~')) target = path.join(process.env.HOME ?? '', target.slice(1));
    target = path.resolve(this.baseDir, target);
    if (isFile(target)) return { id, entry: target, via };
    if (!isDirectory(target)) {
      throw new ModuleNotFoundError(
        id,
        `Module '${id}' not found: ${via} points at ${target}, which does not exist`,
        [target],
      );
    }
    if (readPackageJson(target) !== undefined) return this.#fromPackageDir(id, target, via);
    for (const name of ['index.js', 'index.mjs']) {
      if (isFile(path.join(target, name))) return { id, entry: path.join(target, name), via };
    }
    throw new ModuleLoadError(
      id,
      `Module '${id}': ${target} (from ${via}) has neither a package.json with an "amplifier" field nor an index.js`,
    );
  }

  #fromPackageDir(id: string, dir: string, via: string): ResolvedModule {
    const found = readModulePackage(dir);
    if (found === undefined) {
      const pkg = readPackageJson(dir);
      throw new ModuleLoadError(
        id,
        `Module '${id}': package ${pkg?.name ?? dir} (${dir}, from ${via}) has no "amplifier" field in its package.json; add "amplifier": { "module": "${id}", "type": "<type>" }`,
        { code: 'MODULE_INVALID_MANIFEST' },
      );
    }
    return this.#fromPackage(found, via);
  }

  #fromPackage(found: ModulePackage, via: string): ResolvedModule {
    return { id: found.manifest.module, entry: resolveEntry(found), package: found, via };
  }

  #checkType(id: string, found: ModulePackage, expected: ModuleType | undefined): void {
    if (expected === undefined || found.manifest.type === expected) return;
    throw new ModuleLoadError(
      id,
      `Module '${id}' (${found.packageName} at ${found.dir}) is a ${found.manifest.type} module, but the mount plan uses it as a ${expected}; move it to the ${TYPE_TO_MOUNT_POINT[found.manifest.type]} section`,
      { code: 'MODULE_INCOMPATIBLE' },
    );
  }

  #checkPeerRange(id: string, found: ModulePackage): void {
    let range = found.pkg.peerDependencies?.[CORE_PACKAGE];
    if (range === undefined) return;
    if (range.startsWith('workspace:')) range = range.slice('workspace:'.length);
    if (range === '*' || range === '^' || range === '~' || range === '') return;
    if (!semver.validRange(range)) {
      this.#logger.warn(
        `${found.packageName} declares an invalid ${CORE_PACKAGE} peer range '${range}'; not checked`,
      );
      return;
    }
    if (!semver.satisfies(this.#coreVersion, range, { includePrerelease: true })) {
      throw new ModuleLoadError(
        id,
        `Module '${id}' (${found.packageName}@${found.version} at ${found.dir}) needs ${CORE_PACKAGE} ${range}, but ${this.#coreVersion} is running. Install a version of ${found.packageName} built for this core, or ${CORE_PACKAGE}@"${range}".`,
        { code: 'MODULE_INCOMPATIBLE' },
      );
    }
  }

  #import(id: string, entry: string): Promise<ModuleExports> {
    let pending = this.#imported.get(entry);
    if (pending === undefined) {
      pending = importModule(id, entry);
      this.#imported.set(entry, pending);
      pending.catch(() => this.#imported.delete(entry));
    }
    return pending;
  }
}

async function importModule(id: string, entry: string): Promise<ModuleExports> {
  let ns: Record<string, unknown>;
  try {
    ns = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ModuleLoadError(id, `Module '${id}' failed to import from ${entry}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const candidates = [ns, ns.default as Record<string, unknown> | undefined];
  for (const candidate of candidates) {
    if (candidate && typeof candidate.mount === 'function') {
      return candidate as unknown as ModuleExports;
    }
  }
  throw new ModuleLoadError(
    id,
    `Module '${id}' (${entry}) does not export a mount function: export async function mount(coordinator, config) { ... }`,
  );
}
