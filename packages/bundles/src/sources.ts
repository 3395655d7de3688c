/**
 * Bundle source references: URIs with a `#subdirectory=` fragment, the
 * resolver contract that turns a remote URI into local files, and the
 * mapping of URIs to local copies (`sources`).
 */
import path from 'node:path';
import { BundleDependencyError } from './errors.js';

/** Where a fetched source is on disk. */
export interface ResolvedSource {
  /** The file or folder the URI names (its `#subdirectory=` applied). */
  path: string;
  /** The checkout's root folder, for namespaces of the repository's root bundle. */
  root?: string | undefined;
}

/** Fetches remote bundle sources (`git+https://...`); `gitResolver` is one. */
export interface BundleSourceResolver {
  /** For messages (`git`). */
  readonly name: string;
  /** True when this resolver fetches `uri`. */
  canResolve(uri: string): boolean;
  /** Fetch (or find in a cache) what `uri` names; throws a `BundleError` that says how to get it otherwise. */
  resolve(uri: string): Promise<ResolvedSource>;
}

/** A URI without its fragment, and the fragment's `subdirectory=` value. */
export function splitSubdirectory(uri: string): { base: string; subdirectory: string | undefined } {
  const hash = uri.indexOf('#');
  if (hash === -1) return { base: uri, subdirectory: undefined };
  const params = new URLSearchParams(uri.slice(hash + 1));
  const sub = params.get('subdirectory') ?? undefined;
  return { base: uri.slice(0, hash), subdirectory: sub === '' ? undefined : sub };
}

/** `root/sub`, refusing a subdirectory that leaves the root. */
export function joinSubdirectory(root: string, subdirectory: string | undefined, uri: string): string {
  if (subdirectory === undefined) return root;
  const target = path.resolve(root, subdirectory);
  const rel = path.relative(root, target);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    throw new BundleDependencyError(
      `The subdirectory '${subdirectory}' of ${uri} leaves the repository: refused.`,
    );
  }
  return target;
}

/** True for references the loader hands to a resolver or reads as a URL (`://` or a `git+` prefix). */
export function isUri(ref: string): boolean {
  return ref.includes('://') || ref.startsWith('git+');
}

/**
 * Rewrite `ref` with the first `sources` entry whose key starts it (the longest
 * key first): `{ 'git+https://github.com/org/repo@main': '/src/repo' }` turns
 * `git+https://github.com/org/repo@main#subdirectory=x.yaml` into
 * `/src/repo#subdirectory=x.yaml`.
 */
export function mapSource(ref: string, sources: Readonly<Record<string, string>>): string {
  const keys = Object.keys(sources).sort((a, b) => b.length - a.length);
  for (const key of keys) {
    if (key === '' || !ref.startsWith(key)) continue;
    let rest = ref.slice(key.length);
    // A key matches a whole URI or a URI up to its fragment (or its @ref), never half a name.
    if (rest.startsWith('@')) {
      const hash = rest.indexOf('#');
      rest = hash === -1 ? '' : rest.slice(hash);
    }
    if (rest === '' || rest.startsWith('#') || rest.startsWith('/')) return `${sources[key]}${rest}`;
  }
  return ref;
}
