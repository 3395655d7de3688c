/**
 * The git resolver: `git+<scheme>://host/org/repo@ref#subdirectory=path`
 * cloned with the `git` binary into a cache folder, once per repository and
 * ref (a cached checkout is used as it is, never fetched again).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BundleDependencyError } from './errors.js';
import {
  type BundleSourceResolver,
  joinSubdirectory,
  type ResolvedSource,
  splitSubdirectory,
} from './sources.js';

/** A git source URI, taken apart. */
export interface GitSource {
  /** What `git clone` is given (`https://github.com/org/repo`). */
  url: string;
  /** Branch, tag or commit (default `main`; may contain `/`). */
  ref: string;
  subdirectory: string | undefined;
}

/** Options of `gitResolver`. */
export interface GitResolverOptions {
  /** Where checkouts are kept (the CLI uses `$AMPLIFIER_HOME/cache/bundles`). */
  cacheDir: string;
  /** The git program (default `git` on the PATH). */
  git?: string;
  /** Give up on a clone after this many milliseconds (default 120000). */
  timeoutMs?: number;
  /** Never run git: use cached checkouts only (a missing one is an error that says how to add it). */
  offline?: boolean;
}

/** Parse `git+https://host/org/repo@ref#subdirectory=p` (the ref defaults to `main`). */
export function parseGitUri(uri: string): GitSource {
  if (!uri.startsWith('git+'))
    throw new BundleDependencyError(
      `${uri} is not a git source (git+https://..., git+ssh://..., git+file://...).`,
    );
  const { base, subdirectory } = splitSubdirectory(uri.slice(4));
  const scheme = base.indexOf('://');
  if (scheme === -1)
    throw new BundleDependencyError(`${uri} is not a git URL: expected git+<scheme>://host/path.`);
  const hostStart = scheme + 3;
  const pathStart = base.indexOf('/', hostStart);
  const at = pathStart === -1 ? -1 : base.indexOf('@', pathStart);
  const url = at === -1 ? base : base.slice(0, at);
  const ref = at === -1 ? 'main' : base.slice(at + 1) || 'main';
  return { url, ref, subdirectory };
}

/** The cache folder name of a repository at a ref: readable, and unique by hash. */
export function gitCacheKey(source: Pick<GitSource, 'url' | 'ref'>): string {
  const readable = `${source.url.replace(/^[a-z+]+:\/\//i, '')}@${source.ref}`
    .replace(/[^A-Za-z0-9._@-]+/g, '-')
    .slice(-80)
    .replace(/^[-.]+/, '');
  const hash = createHash('sha256').update(`${source.url}\n${source.ref}`).digest('hex').slice(0, 12);
  return `${readable}-${hash}`;
}

function run(git: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      git,
      args,
      {
        timeout: timeoutMs,
        // Never wait on a password prompt; only plain transports (no ext:: commands from a URL).
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ALLOW_PROTOCOL: 'https:http:ssh:git:file' },
        maxBuffer: 1024 * 1024,
      },
      (error, _stdout, stderr) => {
        if (error === null) resolve();
        else {
          const detail = String(stderr).trim().split('\n').slice(-3).join(' ') || error.message;
          reject(new Error(detail));
        }
      },
    );
  });
}

const COMMIT = /^[0-9a-f]{7,40}$/i;

/** A resolver that clones git sources with the `git` binary into `cacheDir`. */
export function gitResolver(options: GitResolverOptions): BundleSourceResolver {
  const git = options.git ?? 'git';
  const timeoutMs = options.timeoutMs ?? 120_000;
  const inflight = new Map<string, Promise<string>>();

  const checkout = async (uri: string, source: GitSource): Promise<string> => {
    const dir = path.join(options.cacheDir, gitCacheKey(source));
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    const fetchByHand = [
      `To use it without the network, clone it once yourself:`,
      `  git clone --branch ${source.ref} ${source.url} "${dir}"`,
      `or point the URL at a local checkout (CLI: --source git+${source.url}=<folder>).`,
    ];
    if (options.offline === true) {
      throw new BundleDependencyError(
        [
          `Cannot fetch ${uri}: offline, and ${source.url} at '${source.ref}' is not in the cache.`,
          ...fetchByHand,
        ].join('\n'),
      );
    }
    fs.mkdirSync(options.cacheDir, { recursive: true });
    const temp = fs.mkdtempSync(path.join(options.cacheDir, '.clone-'));
    try {
      if (COMMIT.test(source.ref)) {
        await run(git, ['clone', '--quiet', '--', source.url, temp], timeoutMs);
        await run(git, ['-C', temp, 'checkout', '--quiet', source.ref], timeoutMs);
      } else {
        await run(
          git,
          ['clone', '--quiet', '--depth', '1', '--branch', source.ref, '--', source.url, temp],
          timeoutMs,
        );
      }
    } catch (error) {
      fs.rmSync(temp, { recursive: true, force: true });
      throw new BundleDependencyError(
        [
          `Cannot fetch ${uri}: git clone of ${source.url} at '${source.ref}' failed: ${(error as Error).message}`,
          ...fetchByHand,
        ].join('\n'),
        { cause: error },
      );
    }
    try {
      fs.renameSync(temp, dir);
    } catch {
      // Another process put it there first: use theirs.
      fs.rmSync(temp, { recursive: true, force: true });
    }
    return dir;
  };

  return {
    name: 'git',
    canResolve: (uri) => /^git\+[a-z][a-z0-9+.-]*:\/\//i.test(uri),
    async resolve(uri: string): Promise<ResolvedSource> {
      const source = parseGitUri(uri);
      // Refuse a subdirectory that leaves the checkout before fetching anything.
      joinSubdirectory(path.resolve(options.cacheDir, 'checkout'), source.subdirectory, uri);
      const key = gitCacheKey(source);
      let pending = inflight.get(key);
      if (pending === undefined) {
        pending = checkout(uri, source);
        inflight.set(key, pending);
        pending.catch(() => inflight.delete(key));
      }
      const root = await pending;
      return { path: joinSubdirectory(root, source.subdirectory, uri), root };
    },
  };
}
