/**
 * Conformance checks for hook modules: mounting registers handlers; every
 * registered event, emitted with empty or odd data, gives a valid result and no
 * handler throws; cleanup unregisters them or leaves them harmless.
 */
import { checkData, dynamicEvent, type EventData, formatDataErrors, HOOK_ACTIONS } from '@amplifier/core';
import {
  type ConformanceCheck,
  cleanupCheck,
  cleanupForTest,
  describeValue,
  ensure,
  type ModuleUnderTest,
  type MountedModule,
  mountForTest,
  mustNotThrow,
} from './harness.js';
import type { TestCoordinator } from './mocks.js';

/** A hook module under test; `events` names events it must handle (default: whatever it registers). */
export type HookModuleUnderTest = ModuleUnderTest & { events?: string[] };

function handlerCounts(coordinator: TestCoordinator): Map<string, number> {
  return new Map(
    Object.entries(coordinator.hooks.listHandlers()).map(([event, names]) => [event, names.length]),
  );
}

/**
 * Mount with a snapshot of the handlers `setup` registered, and return the
 * events the module added handlers for (plus the expected ones).
 */
async function mountHook(module: HookModuleUnderTest): Promise<{ mounted: MountedModule; events: string[] }> {
  let before = new Map<string, number>();
  const mounted = await mountForTest({
    ...module,
    setup: async (coordinator) => {
      await module.setup?.(coordinator);
      before = handlerCounts(coordinator);
    },
  });
  const after = handlerCounts(mounted.coordinator);
  const added = [...after].filter(([event, n]) => n > (before.get(event) ?? 0)).map(([event]) => event);
  return { mounted, events: [...new Set([...added, ...(module.events ?? [])])] };
}

/** Payloads that do not match what any handler expects. */
export function oddEventData(): (EventData | undefined)[] {
  return [
    undefined,
    { tool_name: 42, tool_input: 'not an object', result: null, data: [1, 2, 3], session_id: null },
    { nested: { deep: { deeper: [null, {}, 'x'.repeat(10_000)] } }, text: '\u0000\u001b[31mred\u0007' },
    { tool_name: 'bash', tool_input: { command: null }, result: { success: 'yes' } },
  ];
}

/** Emit and fail if the result is invalid or a handler threw or returned something invalid. */
export async function emitChecked(
  mounted: MountedModule,
  event: string,
  data: EventData | undefined,
): Promise<void> {
  const from = mounted.logger.records.length;
  const what = `hooks.emit(${describeValue(event)}, ${describeValue(data)})`;
  const result = await mustNotThrow(what, () => mounted.coordinator.hooks.emit(dynamicEvent(event), data));
  ensure(
    typeof result === 'object' && result !== null && HOOK_ACTIONS.has(result.action),
    `${what} returned ${describeValue(result)}`,
  );
  const errors = checkData('hook-result', result);
  ensure(errors.length === 0, `${what} gave an invalid HookResult:\n${formatDataErrors(errors)}`);
  const problems = mounted.logger
    .problemsSince(from)
    .filter((m) => m.includes(`failed on ${event}`) || m.includes('invalid HookResult'));
  ensure(problems.length === 0, `${what}: ${problems.join('; ')}`);
}

/** Every check of the hook suite, in order. */
export const hookChecks: readonly ConformanceCheck<HookModuleUnderTest>[] = [
  {
    name: 'mount registers at least one handler (one for every expected event)',
    async run(module) {
      const { mounted, events } = await mountHook(module);
      try {
        const counts = handlerCounts(mounted.coordinator);
        ensure(
          events.length > 0,
          'mount registered no hook handlers: call coordinator.hooks.register(event, handler)',
        );
        const missing = (module.events ?? []).filter((event) => (counts.get(event) ?? 0) === 0);
        ensure(missing.length === 0, `no handler registered for expected events: ${missing.join(', ')}`);
      } finally {
        await cleanupForTest(mounted);
      }
    },
  },
  {
    name: 'emitting every registered event with empty data gives a valid result and no handler throws',
    async run(module) {
      const { mounted, events } = await mountHook(module);
      try {
        ensure(events.length > 0, 'mount registered no hook handlers');
        for (const event of events) await emitChecked(mounted, event, {});
      } finally {
        await cleanupForTest(mounted);
      }
    },
  },
  {
    name: 'emitting every registered event with odd data gives a valid result and no handler throws',
    async run(module) {
      const { mounted, events } = await mountHook(module);
      try {
        ensure(events.length > 0, 'mount registered no hook handlers');
        for (const event of events) {
          for (const data of oddEventData()) await emitChecked(mounted, event, data);
        }
      } finally {
        await cleanupForTest(mounted);
      }
    },
  },
  {
    name: 'after cleanup, emitting the events is harmless',
    async run(module) {
      const { mounted, events } = await mountHook(module);
      const problems = await cleanupForTest(mounted);
      ensure(problems.length === 0, `cleanup failed: ${problems.join('; ')}`);
      for (const event of events) await emitChecked(mounted, event, {});
    },
  },
  cleanupCheck<HookModuleUnderTest>(),
];
