/**
 * The per-file lock. Mutations of one file through this module (write_file,
 * edit_file, in any session of the process) queue on a lock keyed on the
 * file's real path, so every spelling of the path (relative, `./`, `..`,
 * absolute, `//`, a symlink to it) is one key; read_file opens a file under
 * the same lock, so it never opens a file in the middle of a replace. Under
 * the lock the path is resolved and checked again, so the call works on the
 * file as it is now, not as it was before it waited.
 */
import { type ResolvedPath, SandboxError } from './sandbox.js';

const locks = new Map<string, Promise<unknown>>();

/** Run `fn` after every earlier `withFileLock` call on the same key has settled. */
export async function withFileLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  locks.set(key, settled);
  try {
    return await run;
  } finally {
    if (locks.get(key) === settled) locks.delete(key);
  }
}

/** How often the lock is taken again when the path resolves elsewhere once it is held. */
const MAX_ATTEMPTS = 5;

/**
 * Run `fn` under the lock of the real path `first` resolved to. Once the lock
 * is held, `resolve` runs again (fresh real path, fresh `lstat`, the sandbox
 * checks again) and `fn` gets that result. If the path now resolves to
 * another file (a symlink on the way was changed while waiting), the lock of
 * that file is taken instead. Throws what `resolve` throws.
 */
export async function withLockedPath<T>(
  first: ResolvedPath,
  resolve: () => Promise<ResolvedPath>,
  shown: string,
  fn: (current: ResolvedPath) => Promise<T>,
): Promise<T> {
  let key = first.real;
  for (let attempt = 1; ; attempt++) {
    const outcome = await withFileLock(key, async (): Promise<{ value: T } | { moved: string }> => {
      const current = await resolve();
      if (current.real !== key) return { moved: current.real };
      return { value: await fn(current) };
    });
    if ('value' in outcome) return outcome.value;
    if (attempt >= MAX_ATTEMPTS) {
      throw new SandboxError(
        `Cannot use ${shown}: it resolved to a different file on each of ${MAX_ATTEMPTS} attempts (a symlink on its path keeps changing); retry when it is stable`,
        'PathChanged',
      );
    }
    key = outcome.moved;
  }
}
