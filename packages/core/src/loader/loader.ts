/**
 * ModuleLoader: from a module id to a mountable module. Resolution order: the
 * `sourceResolver` of the call (a session passes its mounted
 * `module-source-resolver`); the source hint (path, `file:` URL or
 * package name); the conventional names `@amplifier/<id>` and
 * `amplifier-module-<id>` (fast path; with extra roots, after the project's own
 * declared modules, also as seen from each extra root); then discovery over declared
 * dependencies and `AMPLIFIER_MODULES`: a module with that id, else the one
 * module declaring it as an alias (an exact id always wins). Checks the declared type against the
 * mount point and the module's `@amplifier/core` peer range against the
 * running core; imports by file URL and checks the exports by shape.
 */
import { realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type {
  LoadedModule,
  LoadOptions,
  Logger,
  ModuleExports,
  ModuleLoaderLike,
  ModuleSourceResolver,
} from '../contracts.js';
import { AmplifierError, errorMessage, ModuleLoadError, ModuleNotFoundError } from '../errors.js';
import { defaultLogger } from '../logger.js';
import { type ModuleAlias, type ModuleInfo, type ModuleType, TYPE_TO_MOUNT_POINT } from '../module-types.js';
import { ownConfig } from '../plain-data.js';
import { VERSION } from '../version.js';
import {
  type DiscoveryIndex,
  describeTargets,
  discoverModules,
  findPackage,
  searchPathsFromEnv,
} from './discovery.js';
import {
  type ModulePackage,
  manifestAliases,
  parsePackageJson,
  readModulePackage,
  readPackageJsonText,
  resolveEntry,
} from './manifest.js';
import { satisfiesRange } from './peer-range.js';

/**
 * Options of `new ModuleLoader()`: the directory modules are resolved from
 * (`baseDir`), more places to discover them (`extraRoots`, `searchPaths`), the
 * `coordinator` whose `module-source-resolver` is asked first, a logger, and the
 * core version that peer ranges are checked against.
 */
export interface ModuleLoaderOptions {
  /** The project modules are resolved from. Default: `process.cwd()`. */
  baseDir?: string;
  /** Other package roots whose dependencies are discovered too (an app's own directory). */
  extraRoots?: readonly string[];
  /** Folders of module packages, or module package folders. Default: `AMPLIFIER_MODULES` (path-delimiter separated). */
  searchPaths?: readonly string[];
  logger?: Logger;
  /** The core version peer ranges are checked against. Default: this core's version. */
  coreVersion?: string;
}

/** Where a module was found, before it is imported. */
export interface ResolvedModule {
  /** The id asked for (an alias stays the alias: see `aliasOf`). */
  id: string;
  /** The alias entry, when `id` is an alias the module answers to (its `id`, `config` defaults, `note`). */
  alias?: ModuleAlias;
  /** The module id of the package, when `id` is one of its aliases. */
  aliasOf?: string;
  /** Absolute real path of the entry file. */
  entry: string;
  /** The package, when the module came from one (plain folders and files have none). */
  package?: ModulePackage;
  /** How it was found, for messages (`source hint`, `@amplifier/tool-bash`, `discovery`, ...). */
  via: string;
  /**
   * The source hint this module stands in for: set when the plan's `source` (a
   * `git+https://...` URL, or a package name that is not installed) could not be
   * used and the module was found by its id instead. Apps say so to the user.
   */
  standsInFor?: string;
}

const CORE_PACKAGE = '@amplifier/core';
const PACKAGE_NAME = /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;
const MAX_PROBLEMS_SHOWN = 10;

function isPathLike(hint: string): boolean {
  return (
    hint.startsWith('file:') ||
    hint.startsWith('.') ||
    hint.startsWith('~') ||
    path.isAbsolute(hint) ||
    path.win32.isAbsolute(hint)
  );
}

/**
 * For a not-found module whose source is a URL (`git+https://...`): the loader
 * fetches no code, so it says what would stand in for that source.
 */
function fetchedSourceNote(id: string, hint: string | undefined): string {
  if (hint === undefined || isPathLike(hint) || PACKAGE_NAME.test(hint)) return '';
  return `Its source ${hint} is not fetched (modules are npm packages here, and no module-source-resolver is mounted), and no installed package stands in for it: one would be a package declaring "amplifier": { "module": "${id}" }.\n`;
}

function isNotFound(error: unknown): boolean {
  return AmplifierError.is(error, 'MODULE_NOT_FOUND');
}

/**
 * Turns a module id into a `LoadedModule` ready to mount. It resolves the id (the
 * mounted `module-source-resolver`, the `source` hint, the names `@amplifier/<id>`
 * and `amplifier-module-<id>`, then discovery), refuses a module whose declared
 * type or `@amplifier/core` peer range does not fit, and imports each entry file
 * once; each `load` binds the module to its own copy of the config given. An id
 * found nowhere throws `ModuleNotFoundError` listing every place searched. Loading
 * never validates a module (that is `validateModule`'s job, in
 * `@amplifier/testing`).
 *
 * @example
 * ```ts
 * import { Coordinator, ModuleLoader } from '@amplifier/core';
 *
 * const loader = new ModuleLoader({ baseDir: '/path/to/app' }); // a session makes one from its baseDir
 * await loader.discover();
 * // [{ id: 'hello', type: 'tool', name: 'amplifier-module-hello', version, path, mount_point: 'tools' }, ...]
 *
 * const hello = await loader.load('hello', { greeting: 'Hi' }, { type: 'tool' });
 * const coordinator = new Coordinator();
 * const cleanup = await hello.mount(coordinator); // mounts with { greeting: 'Hi' }
 * await coordinator.get('tools', 'hello')?.execute({ name: 'Grace' });
 * // { success: true, output: 'Hi, Grace!' }
 * await cleanup?.();
 * ```
 */
export class ModuleLoader implements ModuleLoaderLike {
  /** What `resolve` found without a source resolver, by id and source hint (found modules only). */
  readonly #resolved = new Map<string, ResolvedModule>();
  readonly baseDir: string;
  readonly extraRoots: readonly string[];
  readonly searchPaths: readonly string[];
  readonly #logger: Logger;
  readonly #coreVersion: string;
  /** Imported entry namespaces, by entry path: each module file is imported once. */
  readonly #imported = new Map<string, Promise<ModuleExports>>();

  constructor(options: ModuleLoaderOptions = {}) {
    this.baseDir = path.resolve(options.baseDir ?? process.cwd());
    this.extraRoots = (options.extraRoots ?? []).map((root) => path.resolve(root));
    this.searchPaths = (options.searchPaths ?? searchPathsFromEnv()).map((p) =>
      path.resolve(this.baseDir, p),
    );
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
    const required = found?.manifest.required === true;
    if (found?.manifest.unavailable !== undefined) throw unavailable(id, resolved, found);
    let exports: ModuleExports;
    let own: Record<string, unknown>;
    try {
      if (found !== undefined) {
        this.#checkType(id, found, options.type);
        this.#checkPeerRange(id, found);
      }
      // Own properties only, whatever the caller's object inherits (a module reads what the plan says).
      own = ownConfig(config, id);
      // An alias's config defaults sit under the plan's keys (shallow: a plan key replaces a default).
      if (resolved.alias?.config !== undefined) own = { ...ownConfig(resolved.alias.config, id), ...own };
      exports = await this.#import(id, resolved.entry);
    } catch (error) {
      // Found but not loadable: say whether the package declared itself required.
      if (!required || (error instanceof ModuleLoadError && error.required)) throw error;
      throw new ModuleLoadError(id, errorMessage(error), {
        code: AmplifierError.is(error) ? error.code : 'MODULE_LOAD_FAILED',
        required,
        cause: error,
      });
    }
    const loaded: LoadedModule = {
      id,
      type: found?.manifest.type ?? options.type,
      mount: async (coordinator) => (await exports.mount(coordinator, own)) ?? undefined,
      ...(required && { required }),
      ...(resolved.aliasOf !== undefined && { aliasOf: resolved.aliasOf }),
      ...(found && { packageName: found.packageName, version: found.version, path: found.dir }),
    };
    const ready = exports.onSessionReady;
    if (typeof ready === 'function') {
      loaded.onSessionReady = async (coordinator) => {
        await ready.call(exports, coordinator);
      };
    }
    return loaded;
  }

  /**
   * Find module `id` without importing it. Throws ModuleNotFoundError naming
   * every place looked (or, when the source resolver said "not found" and
   * direct resolution failed too, the resolver's error). The source resolver is
   * `options.sourceResolver` (a session passes its coordinator's).
   */
  async resolve(
    id: string,
    options: { source?: string; sourceResolver?: ModuleSourceResolver } = {},
  ): Promise<ResolvedModule> {
    const searched: string[] = [];
    const resolver = options.sourceResolver;
    if (resolver === undefined) {
      // Found once per loader (a loader serves many sessions): package.json files are read once.
      const key = `${id}\0${options.source ?? ''}`;
      const known = this.#resolved.get(key);
      if (known !== undefined) return known;
      searched.push('module-source-resolver: none mounted');
      const resolved = this.#resolveDirect(id, options.source, searched);
      this.#resolved.set(key, resolved);
      return resolved;
    }
    let location: string;
    try {
      const source = await resolver.resolve(
        id,
        options.source === undefined ? {} : { sourceHint: options.source },
      );
      location = await source.resolve();
    } catch (resolverError) {
      if (!isNotFound(resolverError)) throw resolverError;
      searched.push(`module-source-resolver: ${errorMessage(resolverError)}`);
      try {
        return this.#resolveDirect(id, options.source, searched);
      } catch (directError) {
        if (isNotFound(directError)) throw resolverError;
        throw directError;
      }
    }
    return this.#fromPath(id, location, 'module-source-resolver');
  }

  /** The source hint, the conventional names, then discovery (a hint it could not use is `standsInFor`). */
  #resolveDirect(id: string, hint: string | undefined, searched: string[]): ResolvedModule {
    const resolved = this.#resolveFrom(id, hint, searched);
    if (hint === undefined || resolved.via.startsWith('source ')) return resolved;
    return { ...resolved, standsInFor: hint };
  }

  #resolveFrom(id: string, hint: string | undefined, searched: string[]): ResolvedModule {
    if (hint !== undefined) {
      if (isPathLike(hint)) return this.#fromPath(id, hint, `source '${hint}'`);
      if (PACKAGE_NAME.test(hint)) {
        const located = findPackage(hint, this.baseDir);
        if (located !== undefined)
          return this.#fromPackageDir(id, located.dir, located.text, `source '${hint}'`);
        searched.push(`source '${hint}': no node_modules/${hint} in ${this.baseDir} or its parents`);
      } else {
        searched.push(
          `source '${hint}': not a path or an installed package name (needs a module-source-resolver)`,
        );
      }
    }

    const conventional = this.#conventional(id, this.baseDir, searched);
    if (conventional !== undefined) return conventional;
    if (this.extraRoots.length > 0) {
      // The project's own declared modules first (as in the full index), then the conventional
      // names seen from each extra root (the CLI's bundled modules) before scanning their
      // dependencies: a one-shot `amplifier run` outside a project resolves its modules with a
      // few file reads instead of a scan of every dependency of the CLI.
      const project = discoverModules({ baseDir: this.baseDir, extraRoots: [], searchPaths: [] });
      const own = project.modules.get(id);
      if (own !== undefined) return this.#fromPackage(own, 'discovery');
      for (const root of this.extraRoots) {
        const bundled = this.#conventional(id, root, []);
        if (bundled !== undefined) return bundled;
      }
    }

    const index = this.scan();
    const found = index.modules.get(id);
    if (found !== undefined) return this.#fromPackage(found, 'discovery');
    const targets = index.aliases.get(id) ?? [];
    const [target] = targets;
    if (targets.length > 1) {
      throw new ModuleLoadError(
        id,
        `Module '${id}': no module has this id, and ${describeTargets(targets)} all declare it as an alias, so it is ambiguous. Use one of those module ids in the mount plan, or give the entry a source: "<path or package name>".`,
        { code: 'MODULE_ALIAS_CONFLICT' },
      );
    }
    if (target !== undefined) return this.#fromAlias(target.package, target.alias, 'discovery (alias)');
    searched.push(
      index.roots.length > 0
        ? `declared dependencies of ${index.roots.map((d) => path.join(d, 'package.json')).join(', ')} (${index.scanned} packages examined, none declares "amplifier": { "module": "${id}" })`
        : `declared dependencies: no package.json at or above ${this.baseDir}`,
    );
    searched.push(
      this.searchPaths.length > 0
        ? `AMPLIFIER_MODULES / search paths: ${this.searchPaths.join(path.delimiter)}`
        : 'AMPLIFIER_MODULES: not set',
    );
    const problems = index.problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => `${p.path}: ${p.message}`);
    if (index.problems.length > MAX_PROBLEMS_SHOWN) {
      problems.push(`... and ${index.problems.length - MAX_PROBLEMS_SHOWN} more`);
    }
    throw new ModuleNotFoundError(
      id,
      `Module '${id}' not found.\nLooked in:\n${searched.map((s) => `  - ${s}`).join('\n')}\n${
        problems.length > 0
          ? `Problems met while looking:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`
          : ''
      }${fetchedSourceNote(id, hint)}Fix: npm install @amplifier/${id}   (or give its mount plan entry a source: "<path or package name>")`,
      searched,
    );
  }

  /** `@amplifier/<id>`, then `amplifier-module-<id>`, as Node would find them from `fromDir`. */
  #conventional(id: string, fromDir: string, searched: string[]): ResolvedModule | undefined {
    for (const name of [`@amplifier/${id}`, `amplifier-module-${id}`]) {
      const located = findPackage(name, fromDir);
      if (located === undefined) {
        searched.push(`${name}: no node_modules/${name} in ${fromDir} or its parents`);
        continue;
      }
      const found = readModulePackage(located.dir, parsePackageJson(located.dir, located.text));
      if (found === undefined) {
        searched.push(`${name}: installed at ${located.dir} but its package.json has no "amplifier" field`);
      } else if (found.manifest.module !== id) {
        searched.push(`${name}: installed at ${located.dir} but declares module '${found.manifest.module}'`);
      } else {
        return this.#fromPackage(found, name);
      }
    }
    return undefined;
  }

  /** Every module the loader can find (id, type, package, version, real path, mount point), sorted by id. */
  async discover(): Promise<ModuleInfo[]> {
    const index = this.scan();
    for (const problem of index.problems) this.#logger.warn(`${problem.path}: ${problem.message}`);
    return [...index.modules.values()]
      .map((found) => {
        // Only the aliases that resolve to this module: not a module id, not declared twice.
        const aliases = manifestAliases(found.manifest).filter(
          (alias) => !index.modules.has(alias.id) && index.aliases.get(alias.id)?.length === 1,
        );
        return {
          id: found.manifest.module,
          type: found.manifest.type,
          name: found.packageName,
          version: found.version,
          path: found.dir,
          mount_point: TYPE_TO_MOUNT_POINT[found.manifest.type],
          ...(found.description !== undefined && { description: found.description }),
          ...(aliases.length > 0 && { aliases }),
          ...(found.manifest.unavailable !== undefined && { unavailable: found.manifest.unavailable }),
        };
      })
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The raw discovery result, including invalid manifests and duplicate ids (cached per process). */
  scan(options: { fresh?: boolean } = {}): DiscoveryIndex {
    if (options.fresh) this.#resolved.clear();
    return discoverModules(
      { baseDir: this.baseDir, extraRoots: this.extraRoots, searchPaths: this.searchPaths },
      options,
    );
  }

  /** Nothing to undo: the loader changes no global resolution state. */
  cleanup(): void {}

  /** A path or `file:` URL (from a source hint or a resolver): a package folder, a plain folder or a file. */
  #fromPath(id: string, location: string, via: string): ResolvedModule {
    let target = location.startsWith('file:') ? fileURLToPath(location) : location;
    if (target === '~' || target.startsWith('~/')) target = path.join(os.homedir(), target.slice(1));
    target = path.resolve(this.baseDir, target);
    const stat = statSync(target, { throwIfNoEntry: false });
    if (stat === undefined) {
      throw new ModuleNotFoundError(
        id,
        `Module '${id}' not found: ${via} points at ${target}, which does not exist`,
        [target],
      );
    }
    const real = realpathSync.native(target);
    if (stat.isFile()) return { id, entry: real, via };
    const text = readPackageJsonText(real);
    if (text !== undefined) return this.#fromPackageDir(id, real, text, via);
    for (const name of ['index.js', 'index.mjs']) {
      const file = path.join(real, name);
      if (statSync(file, { throwIfNoEntry: false })?.isFile()) return { id, entry: file, via };
    }
    throw new ModuleLoadError(
      id,
      `Module '${id}': ${target} (from ${via}) has neither a package.json with an "amplifier" field nor an index.js`,
    );
  }

  #fromPackageDir(id: string, dir: string, text: string, via: string): ResolvedModule {
    const pkg = parsePackageJson(dir, text);
    const found = readModulePackage(dir, pkg);
    if (found === undefined) {
      throw new ModuleLoadError(
        id,
        `Module '${id}': package ${pkg.name ?? dir} (${dir}, from ${via}) has no "amplifier" field in its package.json; add "amplifier": { "module": "${id}", "type": "<type>" }`,
        { code: 'MODULE_INVALID_MANIFEST' },
      );
    }
    const alias = manifestAliases(found.manifest).find((a) => a.id === id);
    if (found.manifest.module !== id && alias !== undefined) return this.#fromAlias(found, alias, via);
    if (found.manifest.module !== id) {
      throw new ModuleLoadError(
        id,
        `Module '${id}': package ${found.packageName} (${dir}, from ${via}) declares module '${found.manifest.module}', not '${id}' (nor an alias '${id}'); fix the mount plan's module id or the package's "amplifier".module`,
        { code: 'MODULE_INVALID_MANIFEST' },
      );
    }
    return this.#fromPackage(found, via);
  }

  #fromPackage(found: ModulePackage, via: string): ResolvedModule {
    return { id: found.manifest.module, entry: entryOf(found), package: found, via };
  }

  /** Module `found` under its alias `alias.id`. */
  #fromAlias(found: ModulePackage, alias: ModuleAlias, via: string): ResolvedModule {
    return {
      id: alias.id,
      alias,
      aliasOf: found.manifest.module,
      entry: entryOf(found),
      package: found,
      via,
    };
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
    const declared = found.pkg.peerDependencies?.[CORE_PACKAGE];
    if (typeof declared !== 'string') return;
    // pnpm workspace protocol: workspace:* / workspace:^ / workspace:~ mean "this workspace's core".
    const range = declared.startsWith('workspace:') ? declared.slice('workspace:'.length) : declared;
    if (range === '*' || range === '^' || range === '~' || range === '') return;
    const satisfied = satisfiesRange(this.#coreVersion, range);
    if (satisfied === undefined) {
      this.#logger.warn(
        `${found.packageName} declares an invalid ${CORE_PACKAGE} peer range '${declared}'; not checked`,
      );
      return;
    }
    if (!satisfied) {
      throw new ModuleLoadError(
        id,
        `Module '${id}' (${found.packageName}@${found.version} at ${found.dir}) needs ${CORE_PACKAGE} ${range}, but ${CORE_PACKAGE} ${this.#coreVersion} is running. Install a version of ${found.packageName} made for this core, or ${CORE_PACKAGE}@"${range}".`,
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

/** The entry file; a placeholder's is never imported (loading it fails), so its folder stands in. */
function entryOf(found: ModulePackage): string {
  return found.manifest.unavailable === undefined ? resolveEntry(found) : found.dir;
}

/** The error for a placeholder module (`"unavailable"` in its manifest), by id or alias. */
function unavailable(id: string, resolved: ResolvedModule, found: ModulePackage): ModuleLoadError {
  const what =
    resolved.aliasOf === undefined ? `Module '${id}'` : `Module '${id}' (an alias of '${resolved.aliasOf}')`;
  return new ModuleLoadError(
    id,
    `${what} is not available: ${found.manifest.unavailable} (${found.packageName}@${found.version} at ${found.dir} is a placeholder)`,
    { code: 'MODULE_UNAVAILABLE', required: found.manifest.required === true },
  );
}

/** Import an entry file by file URL (safe for `#`, `%`, spaces and Windows paths) and check its shape. */
async function importModule(id: string, entry: string): Promise<ModuleExports> {
  let ns: Record<string, unknown>;
  try {
    ns = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
  } catch (error) {
    throw new ModuleLoadError(id, `Module '${id}' failed to import from ${entry}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const fallback = ns.default as Record<string, unknown> | undefined;
  for (const candidate of [ns, fallback]) {
    if (candidate && typeof candidate.mount === 'function') return candidate as unknown as ModuleExports;
  }
  const mount = ns.mount ?? fallback?.mount;
  throw new ModuleLoadError(
    id,
    mount === undefined
      ? `Module '${id}' (${entry}) does not export a mount function: add export async function mount(coordinator, config) { ... }`
      : `Module '${id}' (${entry}) exports mount, but it is ${mount === null ? 'null' : `a ${typeof mount}`}, not a function: export async function mount(coordinator, config) { ... }`,
  );
}
