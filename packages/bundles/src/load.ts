/**
 * `loadBundle`: a bundle and everything it includes, composed (reference A4).
 * Includes are found by name (search paths, then registered names), by
 * `namespace:path`, by path (relative to the including file) and by URI (a
 * resolver fetches it). They compose in declared order, the including bundle
 * last; each file loads once (diamonds), a cycle is an error naming the chain,
 * and every include that fails is reported, never skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compose } from './compose.js';
import {
  BundleDependencyError,
  BundleError,
  type BundleErrorOptions,
  BundleLoadError,
  BundleNotFoundError,
  describeChain,
} from './errors.js';
import { BUNDLE_FILES, type BundleData, bundleFileAt, readBundleFile } from './parse.js';
import { BundleReferenceError, type ReferenceLimits, referenceReader } from './references.js';
import {
  type BundleSourceResolver,
  isUri,
  joinSubdirectory,
  mapSource,
  splitSubdirectory,
} from './sources.js';
import { closestName } from './suggest.js';

/** Options of `loadBundle`. */
export interface LoadBundleOptions {
  /** Relative paths and `bundles` entries are relative to it (default: the current directory). */
  baseDir?: string;
  /** Resolvers for remote sources (`gitResolver(...)`); a URI none of them takes is an error. */
  resolvers?: readonly BundleSourceResolver[];
  /** Folders searched for a bundle by name: `<name>/bundle.md`, `<name>/bundle.yaml`, `<name>.yaml`, `<name>.md`. */
  searchPaths?: readonly string[];
  /** Bundle names registered to a path or URI, tried after the search paths. */
  bundles?: Readonly<Record<string, string>>;
  /** URI prefixes mapped to local copies or other URIs (`mapSource`), applied to every reference first. */
  sources?: Readonly<Record<string, string>>;
  /** A circular include: `'error'` (default) or `'skip'` (the reference: dropped with a warning). */
  cycles?: 'error' | 'skip';
  /**
   * Folders an include by path (`./x.yaml`, `../y`, `file://`) may reach besides the
   * including bundle's own root (its folder, or the checkout it came from);
   * default: `baseDir`. Includes by name, by URI through a resolver and
   * `sources` copies are the app's choice and not limited by it.
   */
  roots?: readonly string[];
  /** Bytes of one bundle file and of all bundle files of the load (defaults: 256 KiB, 4 MiB). */
  limits?: Partial<ReferenceLimits>;
}

/** The default caps of one load: 256 KiB a bundle file, 4 MiB for all of them. */
export const BUNDLE_LIMITS: Readonly<ReferenceLimits> = Object.freeze({
  maxFileBytes: 256 * 1024,
  maxTotalBytes: 4 * 1024 * 1024,
});

/** How deep includes may nest (a chain longer than this is an error). */
export const INCLUDE_DEPTH = 10;

/** How many bundle files one load may read. */
export const MAX_BUNDLE_FILES = 500;

/** A composed bundle with what loading it learnt. */
export interface Bundle extends BundleData {
  /** Namespace -> folder, for `ns:path` references (first mapping wins). */
  namespaces: Record<string, string>;
  /** Every bundle file read, in load order. */
  files: string[];
  /**
   * The roots of the bundles loaded (real paths): each bundle's folder, or the
   * checkout or copy it came from. File references (@mentions, context files,
   * agent files) stay inside them and the roots the app adds (the workspace).
   */
  roots: string[];
}

/** A bundle file found for a reference. */
interface Located {
  file: string;
  /** For messages and `BundleData.source`: the path or URI. */
  label: string;
  /** The checkout or mapped folder it came from (its root bundle names a namespace). */
  root?: string | undefined;
  /** The folder its own references stay in: `root`, else the file's folder. */
  scope: string;
}

/** How a bundle name is looked up in a search folder. */
const NAMED_FILES = (name: string): string[] => [
  ...BUNDLE_FILES.map((file) => path.join(name, file)),
  `${name}.yaml`,
  `${name}.yml`,
  `${name}.md`,
];

/** Where `ns:path` may be under the namespace's folder (the suffix is optional). */
const NAMESPACE_FILES = (p: string): string[] => [p, `${p}.yaml`, `${p}.yml`, `${p}.md`];

function isFile(file: string): boolean {
  return fs.statSync(file, { throwIfNoEntry: false })?.isFile() === true;
}

function exists(file: string): boolean {
  return fs.statSync(file, { throwIfNoEntry: false }) !== undefined;
}

/** Indent the lines after the first (for nested lists of problems). */
function indent(text: string, by: string): string {
  return text.replaceAll('\n', `\n${by}`);
}

class BundleLoader {
  readonly #options: LoadBundleOptions;
  readonly #baseDir: string;
  readonly #namespaces = new Map<string, string>();
  /** Namespace -> the scope of the bundle that named it (its references stay inside). */
  readonly #nsScopes = new Map<string, string>();
  readonly #composed = new Map<string, BundleData>();
  readonly #files: string[] = [];
  readonly #warnings: string[] = [];
  /** Bundle roots (real paths), in the order met. */
  readonly #roots = new Set<string>();
  /** A loaded bundle file's real path -> its scope. */
  readonly #scopes = new Map<string, string>();
  readonly #extraRoots: readonly string[];
  readonly #limits: ReferenceLimits;
  #bytes = 0;
  /** The file each bundle was read from (relative includes start from its folder). */
  readonly #fileOf = new WeakMap<BundleData, string>();

  constructor(options: LoadBundleOptions) {
    this.#options = options;
    this.#baseDir = path.resolve(options.baseDir ?? process.cwd());
    this.#extraRoots = options.roots ?? [this.#baseDir];
    this.#limits = { ...BUNDLE_LIMITS, ...options.limits };
  }

  /** Read a bundle file within the caps (its size counts toward the load's budget). */
  #read(file: string, label: string, chain: readonly string[]): BundleData {
    const data = readBundleFile(file, label, this.#limits.maxFileBytes);
    this.#bytes += fs.statSync(file).size;
    if (this.#bytes > this.#limits.maxTotalBytes) {
      throw new BundleDependencyError(
        `The bundle files of this load pass ${this.#limits.maxTotalBytes} bytes (at ${describeChain([...chain, label])}). Include fewer or smaller bundles.`,
      );
    }
    return data;
  }

  #addRoot(folder: string): void {
    try {
      this.#roots.add(fs.realpathSync(folder));
    } catch {
      // A root that is not there holds nothing to read.
    }
  }

  /**
   * `ref`, an include by path of the bundle `from`: resolved by the reference
   * resolver inside `from`'s scope and the loader's roots (a `..` or a symlink
   * that escapes, a secret path, a FIFO: refused).
   */
  #confined(ref: string, from: BundleData, label: string = ref): string {
    const declaredIn = this.#declaringFile(from);
    const reader = referenceReader({ roots: this.#extraRoots });
    return reader.resolve(ref, declaredIn, {
      kind: 'include',
      directories: true,
      label,
      roots: [this.#scopeOf(from)],
    }).file;
  }

  #declaringFile(from: BundleData): string {
    return this.#fileOf.get(from) ?? path.join(from.basePath, '(bundle)');
  }

  #scopeOf(from: BundleData): string {
    return this.#scopes.get(from.basePath) ?? from.basePath;
  }

  async loadRoot(source: string): Promise<Bundle> {
    let located: Located;
    try {
      located = await this.#locate(source, undefined, []);
    } catch (error) {
      if (!BundleError.is(error)) throw error;
      const Kind = error.constructor as new (message: string, options?: BundleErrorOptions) => BundleError;
      throw new Kind(`Cannot load the bundle '${source}':\n${error.message}`, { cause: error });
    }
    let data: BundleData;
    try {
      data = await this.#load(located, []);
    } catch (error) {
      if (!BundleError.is(error) || error.problems.length === 0) throw error;
      const count = error.problems.length;
      const lines = error.problems.map((p) => `  - ${indent(p.message, '    ')}`).join('\n');
      throw new BundleDependencyError(
        `Cannot load the bundle ${located.label}: ${count} include${count === 1 ? '' : 's'} failed:\n${lines}`,
        { problems: error.problems },
      );
    }
    return {
      ...data,
      warnings: [...data.warnings, ...this.#warnings],
      namespaces: Object.fromEntries(this.#namespaces),
      files: [...this.#files],
      roots: [...this.#roots],
    };
  }

  /** The bundle file a reference names. `from` is the including bundle (its folder, for relative paths). */
  async #locate(ref: string, from: BundleData | undefined, chain: readonly string[]): Promise<Located> {
    const mapped = mapSource(ref, this.#options.sources ?? {});
    const dir = from?.basePath ?? this.#baseDir;
    if (isUri(mapped)) return this.#locateUri(mapped, mapped === ref ? from : undefined);
    if (mapped !== ref || mapped.includes('#subdirectory=')) {
      // A reference mapped to a local copy (`sources`), maybe with a #subdirectory= fragment;
      // a fragment on a plain path of a bundle stays inside that bundle's roots.
      const { base, subdirectory } = splitSubdirectory(mapped);
      const root =
        mapped === ref && from !== undefined ? this.#confined(base, from) : path.resolve(dir, base);
      const file = bundleFileAt(joinSubdirectory(root, subdirectory, ref));
      return { file, label: ref, root, scope: root };
    }
    const colon = ref.indexOf(':');
    if (colon > 0 && !/^[A-Za-z]:[\\/]/.test(ref) && !ref.startsWith('.') && !ref.startsWith('/')) {
      return this.#locateNamespaced(ref.slice(0, colon), ref.slice(colon + 1), chain);
    }
    if (!ref.includes('/') && !ref.includes('\\') && !/\.(md|ya?ml)$/i.test(ref)) {
      const named = await this.#findNamed(ref, chain);
      if (named !== undefined) return named;
      const file = path.resolve(dir, ref);
      if (!exists(file)) throw new BundleNotFoundError(this.#notANameMessage(ref, file));
      return this.#atPath(ref, file, from);
    }
    const file = path.resolve(dir, ref);
    // An include is checked (lexically, then its real path) before anything is looked up.
    if (from === undefined && !exists(file)) throw new BundleNotFoundError(`No bundle file ${file}.`);
    return this.#atPath(ref, file, from);
  }

  /** A bundle by path: the caller's is taken as given (its folder is its root); an include's is confined. */
  #atPath(ref: string, file: string, from: BundleData | undefined): Located {
    if (from === undefined) {
      const found = bundleFileAt(file);
      return { file: found, label: file, scope: path.dirname(found) };
    }
    let real: string;
    try {
      real = this.#confined(ref, from);
    } catch (error) {
      if (!(error instanceof BundleReferenceError && error.reason === 'missing')) throw error;
      throw new BundleNotFoundError(`No bundle file ${file} (included as '${ref}').`);
    }
    return { file: bundleFileAt(real), label: file, scope: this.#scopeOf(from) };
  }

  async #locateUri(uri: string, from: BundleData | undefined): Promise<Located> {
    if (uri.startsWith('file://')) {
      const { base, subdirectory } = splitSubdirectory(uri);
      let root = fileURLToPath(base);
      // A bundle's file:// include is a path like any other: inside its roots.
      if (from !== undefined) root = this.#confined(path.relative(from.basePath, root) || '.', from, uri);
      const file = bundleFileAt(joinSubdirectory(root, subdirectory, uri));
      return {
        file,
        label: uri,
        root: subdirectory === undefined ? undefined : root,
        scope: subdirectory === undefined ? path.dirname(file) : root,
      };
    }
    const resolver = (this.#options.resolvers ?? []).find((r) => r.canResolve(uri));
    if (resolver === undefined) {
      const scheme = uri.slice(0, uri.indexOf('://') + 3) || uri;
      const known = (this.#options.resolvers ?? []).map((r) => r.name);
      throw new BundleDependencyError(
        [
          `Cannot fetch ${uri}: no resolver takes ${scheme} sources${known.length > 0 ? ` (resolvers: ${known.join(', ')})` : ''}.`,
          `Fetch it with a resolver (gitResolver for git+ URLs), or point the URL at a local copy (the sources option; CLI: --source <url>=<folder>).`,
        ].join('\n'),
      );
    }
    const resolved = await resolver.resolve(uri);
    const file = bundleFileAt(resolved.path);
    return { file, label: uri, root: resolved.root, scope: resolved.root ?? path.dirname(file) };
  }

  async #locateNamespaced(ns: string, rel: string, chain: readonly string[]): Promise<Located> {
    let root = this.#namespaces.get(ns);
    if (root === undefined) {
      // A namespace not loaded yet: fetch and read the bundle of that name (not its includes),
      // which names its folder.
      const named = await this.#findNamed(ns, chain);
      if (named !== undefined) {
        const data = this.#read(named.file, named.label, chain);
        this.#scopes.set(data.basePath, named.scope);
        this.#addRoot(named.scope);
        this.#registerBundle(data);
        if (named.root !== undefined) this.#registerRoot(named.root, named.file);
        this.#register(ns, this.#folderOf(data), named.scope);
      }
      root = this.#namespaces.get(ns);
    }
    const ref = `${ns}:${rel}`;
    if (root === undefined) {
      throw new BundleDependencyError(
        `The namespace '${ns}' of '${ref}' is unknown: no bundle named '${ns}' is loaded or found (${this.#whereNamesAreLooked()}). Put the bundle named '${ns}' in a search folder, or register it (CLI: --source).`,
      );
    }
    const scope = this.#nsScopes.get(ns) ?? root;
    const reader = referenceReader({ roots: [scope], namespaces: { [ns]: root } });
    const declaredIn = path.join(root, '(namespace)');
    for (const how of [
      { kind: 'include', suffixes: NAMESPACE_FILES('').slice(1) },
      { kind: 'include', directories: true },
    ]) {
      try {
        const target = reader.resolve(ref, declaredIn, how);
        return { file: bundleFileAt(target.file), label: ref, scope };
      } catch (error) {
        const reason = error instanceof BundleReferenceError ? error.reason : undefined;
        if (reason !== 'missing' && reason !== 'not-a-file') throw error;
      }
    }
    throw new BundleDependencyError(
      `'${ref}' is not in the namespace '${ns}' (${root}): no ${rel}, ${rel}.yaml, ${rel}.yml, ${rel}.md, ${rel}/bundle.md or ${rel}/bundle.yaml there.`,
    );
  }

  #whereNamesAreLooked(): string {
    const folders = (this.#options.searchPaths ?? []).join(', ') || 'no search folders';
    const names = Object.keys(this.#options.bundles ?? {});
    return `searched: ${folders}; registered names: ${names.length > 0 ? names.join(', ') : 'none'}`;
  }

  #notANameMessage(ref: string, file: string): string {
    const near = closestName(ref, this.#knownNames());
    const hint = near === undefined ? '' : ` Did you mean '${near}'?`;
    return `No bundle named '${ref}' (${this.#whereNamesAreLooked()}) and no file ${file}.${hint}`;
  }

  /** The names a bundle can be asked by: the registered ones and those in the search folders. */
  #knownNames(): string[] {
    const names = new Set(Object.keys(this.#options.bundles ?? {}));
    for (const folder of this.#options.searchPaths ?? []) {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(folder, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (entry.isDirectory()) names.add(entry.name);
        else if (/\.(ya?ml|md)$/i.test(entry.name)) names.add(entry.name.replace(/\.(ya?ml|md)$/i, ''));
      }
    }
    return [...names];
  }

  /** A bundle by name: the search folders first, then the registered names. */
  async #findNamed(name: string, chain: readonly string[]): Promise<Located | undefined> {
    for (const folder of this.#options.searchPaths ?? []) {
      for (const candidate of NAMED_FILES(name)) {
        const file = path.resolve(folder, candidate);
        if (isFile(file)) return { file, label: file, scope: path.dirname(file) };
      }
    }
    const registered = this.#options.bundles?.[name];
    if (registered === undefined || !Object.hasOwn(this.#options.bundles ?? {}, name)) return undefined;
    const located = await this.#locate(registered, undefined, chain);
    return { ...located, label: located.label === registered ? `${name} (${registered})` : located.label };
  }

  /** The folder a bundle's namespace names: its own, or its `namespace_root`. */
  #folderOf(data: BundleData): string {
    return data.namespaceRoot ? path.resolve(data.basePath, data.namespaceRoot) : data.basePath;
  }

  #registerBundle(data: BundleData): void {
    this.#register(data.name, this.#folderOf(data), this.#scopeOf(data));
  }

  /** Register `name` -> folder unless the name is taken (the first mapping wins). */
  #register(name: string, folder: string, scope: string): void {
    if (name === '' || this.#namespaces.has(name)) return;
    this.#namespaces.set(name, folder);
    this.#nsScopes.set(name, scope);
  }

  /** The repository's root bundle names the checkout root (a nested bundle may use the root's namespace). */
  #registerRoot(root: string, file: string): void {
    for (const name of BUNDLE_FILES) {
      const candidate = path.join(root, name);
      if (candidate === file || !isFile(candidate)) continue;
      try {
        this.#register(this.#read(candidate, candidate, []).name, root, root);
      } catch {
        // A broken root bundle only loses its namespace; the file that was asked for loads.
      }
      return;
    }
  }

  async #load(located: Located, chain: readonly string[]): Promise<BundleData> {
    const key = fs.realpathSync(located.file);
    const labels = [...chain, located.label];
    if (this.#chainKeys(chain).includes(key)) {
      throw new BundleDependencyError(`Circular include: ${describeChain(labels)}.`);
    }
    const cached = this.#composed.get(key);
    if (cached !== undefined) return cached;
    if (chain.length >= INCLUDE_DEPTH) {
      throw new BundleDependencyError(
        `Includes nest deeper than ${INCLUDE_DEPTH} levels: ${describeChain(labels)}. Flatten the includes.`,
      );
    }
    if (this.#files.length >= MAX_BUNDLE_FILES) {
      throw new BundleDependencyError(
        `More than ${MAX_BUNDLE_FILES} bundle files in one load (at ${describeChain(labels)}). Include fewer bundles.`,
      );
    }
    const data = this.#read(located.file, located.label, chain);
    this.#fileOf.set(data, located.file);
    this.#scopes.set(data.basePath, located.scope);
    this.#addRoot(located.scope);
    this.#files.push(key);
    this.#keys.set(located.label, key);
    this.#registerBundle(data);
    if (located.root !== undefined) this.#registerRoot(located.root, located.file);

    const parts: BundleData[] = [];
    const problems: BundleError[] = [];
    for (const ref of data.includes) {
      try {
        const child = await this.#locate(ref, data, labels);
        parts.push(await this.#load(child, labels));
      } catch (error) {
        if (!BundleError.is(error)) throw error;
        if (error.problems.length > 0) problems.push(...error.problems);
        else if (error.message.startsWith('Circular include') && this.#options.cycles === 'skip') {
          this.#warnings.push(`${error.message} The include '${ref}' was skipped.`);
        } else {
          problems.push(
            new BundleDependencyError(`${describeChain(labels)} includes '${ref}':\n${error.message}`, {
              cause: error,
            }),
          );
        }
      }
    }
    if (problems.length > 0)
      throw new BundleDependencyError(`${problems.length} includes failed`, { problems });
    const result = [...parts, data].reduce((a, b) => compose(a, b));
    this.#composed.set(key, result);
    return result;
  }

  readonly #keys = new Map<string, string>();

  #chainKeys(chain: readonly string[]): string[] {
    return chain.map((label) => this.#keys.get(label) ?? label);
  }
}

/**
 * Load a bundle by path, name or URI, with everything it includes, composed.
 * Throws a `BundleError` that names the bundle, the include chain and how to
 * get what is missing; every failed include is listed (`error.problems`).
 */
export async function loadBundle(source: string, options: LoadBundleOptions = {}): Promise<Bundle> {
  try {
    return await new BundleLoader(options).loadRoot(source);
  } catch (error) {
    if (BundleError.is(error) || !(error instanceof Error)) throw error;
    throw new BundleLoadError(`Cannot load the bundle ${source}: ${error.message}`, { cause: error });
  }
}
