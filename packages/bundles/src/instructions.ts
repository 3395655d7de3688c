/**
 * Giving a session its bundle's system prompt, through the seam the context
 * manager offers: a system prompt factory (`setSystemPromptFactory`, as
 * context-simple has), called on every request, or else one system message
 * added once (reference A6).
 */
import type { ContextManager } from '@amplifier/core';

/** A context manager that rebuilds the system prompt on every request. */
interface FactoryContext {
  setSystemPromptFactory(factory: (() => string | Promise<string>) | null): Promise<void> | void;
}

function hasFactory(context: ContextManager): context is ContextManager & FactoryContext {
  return typeof (context as Partial<FactoryContext>).setSystemPromptFactory === 'function';
}

/**
 * Install the system prompt `build` makes: as a factory when the context has
 * one (each request gets a fresh prompt), else as one system message now.
 * Returns how it was installed, or `'none'` when `build` has nothing.
 */
export async function applySystemPrompt(
  context: ContextManager,
  build: () => Promise<string | undefined>,
): Promise<'factory' | 'message' | 'none'> {
  const first = await build();
  if (first === undefined) return 'none';
  if (hasFactory(context)) {
    let latest = first;
    let fresh = true;
    await context.setSystemPromptFactory(async () => {
      // The first request uses the prompt built now; later ones rebuild it (edited files show).
      if (fresh) {
        fresh = false;
        return latest;
      }
      latest = (await build()) ?? latest;
      return latest;
    });
    return 'factory';
  }
  await context.addMessage({ role: 'system', content: first });
  return 'message';
}
