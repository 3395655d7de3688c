/**
 * What a module changed in its session while it was being mounted (tools and
 * providers mounted, hooks registered, capabilities, contributors, cleanups,
 * cancellation callbacks), so that a mount that throws half way can be undone
 * completely: a module that failed leaves nothing behind the model can reach.
 *
 * The journal belongs to one coordinator (its hooks and its cancellation token
 * share the coordinator's `JournalSlot`) and is open while that module mounts:
 * a session mounts its modules one at a time, so what changes the coordinator
 * meanwhile is the mounting module's doing (work another module left running
 * in the background is the one exception, and is rare during start-up).
 * Another session's coordinator has its own slot. A journal opened inside
 * another (a module mounting sub-modules) hands its changes to the outer one
 * when it succeeds, so undoing the outer undoes them too.
 *
 * Not AsyncLocalStorage: on Node 20 one `run()` switches on async hooks for
 * the whole process and doubles the cost of every promise after it.
 */
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

/** Where a coordinator, its hooks and its cancellation token find the open journal. */
export class JournalSlot {
  current: MountJournal | undefined = undefined;
}

const slots = new WeakMap<object, JournalSlot>();

/** The journal slot of `owner` (a coordinator), created on first use. */
export function journalSlot(owner: object): JournalSlot {
  let slot = slots.get(owner);
  if (slot === undefined) {
    slot = new JournalSlot();
    slots.set(owner, slot);
  }
  return slot;
}

/**
 * Run `fn` (a module's load and mount) with a journal open on `owner`'s
 * slot: on success its changes join the enclosing journal, if any; on
 * failure they are undone (after which the error is re-thrown).
 */
export async function journaled<T>(
  owner: object,
  moduleId: string,
  logger: Logger,
  fn: () => Promise<T>,
): Promise<T> {
  const slot = journalSlot(owner);
  const parent = slot.current;
  const journal = new MountJournal();
  slot.current = journal;
  let result: T;
  try {
    result = await fn();
  } catch (error) {
    slot.current = parent;
    await journal.rollback(logger, moduleId);
    throw error;
  } finally {
    slot.current = parent;
  }
  journal.commit(parent);
  return result;
}
