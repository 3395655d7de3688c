/**
 * Conformance checks for context managers: history is kept exactly (order,
 * copies, replace, clear), the request view contains the latest user message,
 * and odd messages never break the context.
 */
import type { ContextManager, Message } from '@amplifier/core';
import { errorMessage } from '@amplifier/core';
import {
  type ConformanceCheck,
  cleanupCheck,
  describeValue,
  ensure,
  type ModuleUnderTest,
  mustNotThrow,
  withMounted,
} from './harness.js';
import { MockProvider } from './mocks.js';

const METHODS = ['addMessage', 'getMessagesForRequest', 'getMessages', 'setMessages', 'clear'] as const;

/** The mounted context manager, with all five methods. */
function mountedContext(coordinator: { get(point: 'context'): ContextManager | undefined }): ContextManager {
  const context = coordinator.get('context');
  ensure(
    context !== undefined && context !== null,
    'mount did not mount a context manager: call coordinator.mount("context", contextManager)',
  );
  const missing = METHODS.filter(
    (m) => typeof (context as unknown as Record<string, unknown>)[m] !== 'function',
  );
  ensure(missing.length === 0, `the context manager lacks ${missing.join(', ')}`);
  return context;
}

/** A stable text form of a message's content, for comparing what went in with what came out. */
function contentKey(message: unknown): string {
  const m = message as { role?: unknown; content?: unknown } | null;
  return `${String(m?.role)}:${JSON.stringify(m?.content)}`;
}

async function history(context: ContextManager, what = 'getMessages()'): Promise<Message[]> {
  const messages = await mustNotThrow(what, () => context.getMessages());
  ensure(Array.isArray(messages), `${what} must return an array, returned ${describeValue(messages)}`);
  return messages;
}

function sameMessages(actual: readonly Message[], expected: readonly Message[], what: string): void {
  const got = actual.map(contentKey);
  const want = expected.map(contentKey);
  ensure(
    got.length === want.length && got.every((key, i) => key === want[i]),
    `${what}: expected ${want.length} messages [${want.join(' | ')}], got ${got.length} [${got.join(' | ')}]`,
  );
}

const conversation = (): Message[] => [
  { role: 'system', content: 'You are the conformance suite.' },
  { role: 'user', content: 'first question' },
  { role: 'assistant', content: [{ type: 'text', text: 'first answer' }] },
  { role: 'user', content: 'last question' },
];

/** Messages a buggy orchestrator or hook might add. */
export function oddMessages(): unknown[] {
  return [
    { role: 'user', content: '' },
    { role: 'user', content: [] },
    { role: 'assistant', content: [{ type: 'mystery_block', value: 1 }] },
    { role: 'tool', tool_call_id: 'call_that_never_happened', content: 'orphan tool result' },
    { role: 'user', content: 'x'.repeat(50_000) },
    { role: 'user', content: 'extra fields', unknown_field: { nested: [null, true] } },
    { invalid: 'message' },
  ];
}

/** Every check of the context suite, in order. */
export const contextChecks: readonly ConformanceCheck<ModuleUnderTest>[] = [
  {
    name: 'mount mounts a context manager with the five methods',
    run: (module) =>
      withMounted(module, async ({ coordinator }) => {
        mountedContext(coordinator);
      }),
  },
  {
    name: 'getMessages() on an empty context returns an empty array (never null)',
    run: (module) =>
      withMounted(module, async ({ coordinator }) => {
        const messages = await history(mountedContext(coordinator));
        ensure(messages.length === 0, `a new context holds ${messages.length} messages`);
      }),
  },
  {
    name: 'addMessage then getMessages round-trips a message',
    run: (module) =>
      withMounted(module, async ({ coordinator }) => {
        const context = mountedContext(coordinator);
        const message: Message = { role: 'user', content: 'round trip' };
        await mustNotThrow('addMessage()', () => context.addMessage(message));
        sameMessages(await history(context), [message], 'after one addMessage');
      }),
  },
  {
    name: 'messages keep their order',
    run: (module) =>
      withMounted(module, async ({ coordinator }) => {
        const context = mountedContext(coordinator);
        const messages = conversation();
        for (const m of messages) await mustNotThrow('addMessage()', () => context.addMessage(m));
        sameMessages(await history(context), messages, 'after four addMessage calls');
      }),
  },
  {
    name: 'getMessages returns a copy: changing it does not change the history',
    run: (module) =>
      withMounted(module, async ({ coordinator }) => {
        const context = mountedContext(coordinator);
        const messages = conversation();
        for (const m of messages) await context.addMessage(m);
        const first = await history(context);
        first.splice(0, first.length, { role: 'user', content: 'intruder' });
        sameMessages(await history(context), messages, 'after changing the array getMessages returned');
      }),
  },
  {
    name: 'setMessages then getMessages returns the same messages',
    run: (module) =>
      withMounted(module, async ({ coordinator }) => {
        const context = mountedContext(coordinator);
        await context.addMessage({ role: 'user', content: 'to be replaced' });
        const replacement = conversation();
        await mustNotThrow('setMessages()', () => context.setMessages(replacement));
        sameMessages(await history(context), replacement, 'after setMessages');
      }),
  },
  {
    name: 'clear empties the context',
    run: (module) =>
      withMounted(module, async ({ coordinator }) => {
        const context = mountedContext(coordinator);
        for (const m of conversation()) await context.addMessage(m);
        await mustNotThrow('clear()', () => context.clear());
        const after = await history(context, 'getMessages() after clear()');
        ensure(after.length === 0, `clear() left ${after.length} messages`);
        const view = await mustNotThrow('getMessagesForRequest() after clear()', () =>
          context.getMessagesForRequest(),
        );
        ensure(
          Array.isArray(view) && !view.some((m) => contentKey(m).includes('question')),
          `getMessagesForRequest() after clear() still returns cleared messages: ${describeValue(view)}`,
        );
      }),
  },
  {
    name: 'getMessagesForRequest contains the last user message and keeps the history intact',
    run: (module) =>
      withMounted(module, async ({ coordinator }) => {
        const context = mountedContext(coordinator);
        const messages = conversation();
        for (const m of messages) await context.addMessage(m);
        const last = contentKey(messages[3]);
        for (const [what, call] of [
          ['getMessagesForRequest()', () => context.getMessagesForRequest()],
          [
            'getMessagesForRequest({ provider })',
            () => context.getMessagesForRequest({ provider: new MockProvider() }),
          ],
        ] as const) {
          const view = await mustNotThrow(what, call);
          ensure(Array.isArray(view), `${what} must return an array, returned ${describeValue(view)}`);
          ensure(
            view.some((m) => contentKey(m) === last),
            `${what} does not contain the last user message: ${describeValue(view)}`,
          );
        }
        sameMessages(await history(context), messages, 'history after getMessagesForRequest');
      }),
  },
  {
    name: 'odd messages do not crash the context',
    run: (module) =>
      withMounted(module, async ({ coordinator }) => {
        const context = mountedContext(coordinator);
        await context.addMessage({ role: 'user', content: 'before the odd ones' });
        for (const odd of oddMessages()) {
          try {
            await context.addMessage(odd as Message);
          } catch (error) {
            // Refusing a bad message with a deliberate error is fine; a TypeError is a crash.
            ensure(
              !(error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError),
              `addMessage(${describeValue(odd)}) crashed: ${errorMessage(error)}`,
            );
          }
        }
        const after = await history(context, 'getMessages() after odd messages');
        ensure(
          after.some((m) => contentKey(m) === contentKey({ role: 'user', content: 'before the odd ones' })),
          'the history lost earlier messages after odd ones were added',
        );
        const view = await mustNotThrow('getMessagesForRequest() after odd messages', () =>
          context.getMessagesForRequest(),
        );
        ensure(Array.isArray(view), 'getMessagesForRequest() after odd messages must return an array');
      }),
  },
  cleanupCheck<ModuleUnderTest>(),
];
