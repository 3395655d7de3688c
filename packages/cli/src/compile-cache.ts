/**
 * Node's on-disk cache of compiled module code (`module.enableCompileCache`,
 * Node 22.1+): later runs of the command skip most of the parsing and
 * compiling of the CLI, the kernel and the modules. Older Node versions have
 * no such function and run as before.
 */

/** The part of `node:module` used here. */
export interface CompileCacheApi {
  enableCompileCache?: (cacheDir?: string) => unknown;
}

/** Turn the cache on when this Node has it; returns whether it was asked to. Never throws. */
export function enableCompileCache(api: CompileCacheApi): boolean {
  if (typeof api.enableCompileCache !== 'function') return false;
  try {
    api.enableCompileCache();
    return true;
  } catch {
    return false;
  }
}
