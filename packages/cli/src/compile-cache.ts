/**
 * Node's on-disk cache of compiled module code (`module.enableCompileCache`,
 * Node 22.1+): later runs of the command skip most of the parsing and
 * compiling of the CLI, the kernel and the modules. It lives in the user's
 * cache directory (`$XDG_CACHE_HOME/amplifier-ts/compile-cache`, else
 * `~/.cache/amplifier-ts/compile-cache`), next to what `.ci/run` caches;
 * `NODE_COMPILE_CACHE` moves it and `NODE_DISABLE_COMPILE_CACHE` turns it
 * off, as for any Node program. Older Node versions have no such function and
 * run as before; a directory that cannot be created or written leaves the
 * cache off, silently (start-up is only slower).
 */
import os from 'node:os';
import path from 'node:path';

/** What `module.enableCompileCache` answers (Node 22.1+): `status` is one of `module.constants.compileCacheStatus`. */
export interface CompileCacheResult {
  status: number;
  message?: string;
  directory?: string;
}

/** The part of `node:module` used here. */
export interface CompileCacheApi {
  enableCompileCache?: (cacheDir?: string) => CompileCacheResult | undefined;
  constants?: { compileCacheStatus?: { ENABLED?: number; ALREADY_ENABLED?: number } };
}

/** The cache directory: `NODE_COMPILE_CACHE` when set (undefined: Node reads it), else under the user's cache dir. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.NODE_COMPILE_CACHE) return undefined;
  const home = env.HOME || os.homedir() || os.tmpdir();
  const cache =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)
      ? env.XDG_CACHE_HOME
      : path.join(home, '.cache');
  return path.join(cache, 'amplifier-ts', 'compile-cache');
}

/**
 * Turn the cache on when this Node has it; returns the directory in use, or
 * undefined when it is off (no such Node, disabled, or the directory is not
 * writable). Never throws.
 */
export function enableCompileCache(
  api: CompileCacheApi,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (typeof api.enableCompileCache !== 'function') return undefined;
  try {
    const result = api.enableCompileCache(compileCacheDir(env));
    const statuses = api.constants?.compileCacheStatus ?? {};
    const on =
      result !== undefined &&
      (result.status === statuses.ENABLED || result.status === statuses.ALREADY_ENABLED);
    return on ? result.directory : undefined;
  } catch {
    return undefined;
  }
}
