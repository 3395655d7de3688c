/**
 * What a module changed in its session while it was being mounted (tools and
 * providers mounted, hooks registered, capabilities, contributors, cleanups,
 * cancellation callbacks), so that a mount that throws half way can be undone
 * completely: a module that failed leaves nothing behind the model can reach.
 *
 * The journal follows the mount's async context (AsyncLocalStorage), so work
 * of other modules running meanwhile is not attributed to it. A journal opened
 * inside another (a module mounting sub-modules) hands its changes to the
 * outer one when it succeeds, so undoing the outer undoes them too.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Cleanup, Logger } from './contracts.js';
import { errorMessage } from './errors.js';

interface Change {
  undo: () => void;
  /** Set for cleanups the module registered: they run when the mount is undone. */
  cleanup?: Cleanup;
}

export class MountJournal {
  readonly #changes: Change[] = [];
  #open = true;

  /** Remember how to undo a change (ignored once the mount has finished). */
  record(undo: () => void): void {
    if (this.#open) this.#changes.push({ undo });
  }

  /** A cleanup the module registered: `remove` takes it off the session's list, and it runs on undo. */
  recordCleanup(cleanup: Cleanup, remove: () => void): void {
    if (this.#open) this.#changes.push({ undo: remove, cleanup });
  }

  /** How many changes were recorded. */
  get size(): number {
    return this.#changes.length;
  }

  /** Close the journal and hand its changes to `parent` (when there is one). */
  commit(parent: MountJournal | undefined): void {
    this.#open = false;
    if (parent === undefined || !parent.#open) return;
    parent.#changes.push(...this.#changes);
  }

  /**
   * Close the journal and undo every change, newest first; the module's own
   * cleanups run in the same order. Never throws: a failing undo or cleanup is
   * logged and the rest still run.
   */
  async rollback(logger: Logger, moduleId: string): Promise<void> {
    this.#open = false;
    const changes = this.#changes.splice(0);
    for (let i = changes.length - 1; i >= 0; i--) {
      const change = changes[i]!;
      try {
        change.undo();
        await change.cleanup?.();
      } catch (error) {
        logger.warn(`undoing the failed mount of '${moduleId}': ${errorMessage(error)}`);
      }
    }
  }
}

const current = new AsyncLocalStorage<MountJournal>();

/** The journal of the mount running in this async context, if any. */
export function currentJournal(): MountJournal | undefined {
  return current.getStore();
}

/**
 * Run `fn` (a module's load and mount) with a journal: on success its changes
 * join the enclosing journal, if any; on failure they are undone (after which
 * the error is re-thrown).
 */
export async function journaled<T>(moduleId: string, logger: Logger, fn: () => Promise<T>): Promise<T> {
  const parent = current.getStore();
  const journal = new MountJournal();
  let result: T;
  try {
    result = await current.run(journal, fn);
  } catch (error) {
    await journal.rollback(logger, moduleId);
    throw error;
  }
  journal.commit(parent);
  return result;
}
