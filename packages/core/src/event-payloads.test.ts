/**
 * Typed events. Most checks here are made by the compiler (`turbo run
 * typecheck` runs `tsc` on this file): `expectTypeOf` fails to compile when a
 * type differs, and each `@ts-expect-error` line fails to compile when it is
 * NOT an error. The tests also run, so the typed calls are shown to behave as
 * the untyped ones always did.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as EventConstants from './events.js';
import {
  ALL_EVENTS,
  type CanonicalEventName,
  type CanonicalEventPayloads,
  type DynamicEventName,
  dynamicEvent,
  type EmitResult,
  type EventData,
  type EventKey,
  type EventName,
  type EventPayload,
  type EventPayloads,
  type EventSink,
  events,
  type HookHandler,
  HookRegistry,
  type LLMStreamAbortedEvent,
  type LLMStreamBlockDeltaEvent,
  type ToolPostEvent,
  type ToolPreEvent,
} from './index.js';
import { silentLogger } from './logger.js';

// A module's own event, declared as a module outside core would (there: `declare module '@amplifier/core'`).
declare module './index.js' {
  interface EventPayloads {
    'test:augmented': { file: string; problems: number; [key: string]: unknown };
  }
}

/** The names of the event constants of events.ts (everything but ALL_EVENTS and the channel). */
type CanonicalName = (typeof EventConstants)[Exclude<
  keyof typeof EventConstants,
  'ALL_EVENTS' | 'OBSERVABILITY_EVENTS_CHANNEL'
>];

const registry = (): HookRegistry => new HookRegistry({ logger: silentLogger });

describe('the payload map', () => {
  it('types exactly the 42 canonical events', () => {
    expectTypeOf<keyof CanonicalEventPayloads>().toEqualTypeOf<CanonicalName>();
    expectTypeOf(ALL_EVENTS).toEqualTypeOf<readonly CanonicalEventName[]>();
    expect(ALL_EVENTS).toHaveLength(42);
  });

  it('holds the canonical events and the ones modules add', () => {
    expectTypeOf<CanonicalName>().toExtend<EventName>();
    expectTypeOf<'test:augmented'>().toExtend<EventName>();
    expectTypeOf<'my:event'>().not.toExtend<EventName>();
    expectTypeOf<EventPayloads['tool:pre']>().toEqualTypeOf<ToolPreEvent>();
  });

  it('gives EventData for a dynamic name, a union for a union of names', () => {
    expectTypeOf<EventPayload<DynamicEventName>>().toEqualTypeOf<EventData>();
    expectTypeOf<EventPayload<string>>().toEqualTypeOf<EventData>();
    expectTypeOf<EventPayload<'tool:pre' | 'tool:post'>>().toEqualTypeOf<ToolPreEvent | ToolPostEvent>();
  });

  it('types the four token-streaming events of providers, outside the canonical set and ALL_EVENTS', async () => {
    expectTypeOf<EventPayloads['llm:stream_block_delta']>().toEqualTypeOf<LLMStreamBlockDeltaEvent>();
    expectTypeOf<EventPayloads['llm:stream_aborted']>().toEqualTypeOf<LLMStreamAbortedEvent>();
    expectTypeOf<'llm:stream_block_start'>().not.toExtend<keyof CanonicalEventPayloads>();
    expect(ALL_EVENTS).not.toContain('llm:stream_block_start');
    const hooks = registry();
    const request_id = '6f1c2a3b-4d5e-4f60-8a1b-2c3d4e5f6a7b';
    await hooks.emit('llm:stream_block_start', {
      request_id,
      block_index: 0,
      block_type: 'tool_use',
      name: 'grep',
    });
    await hooks.emit('llm:stream_block_delta', {
      request_id,
      block_index: 1,
      block_type: 'text',
      sequence: 0,
      text: 'a',
    });
    await hooks.emit('llm:stream_block_end', { request_id, block_index: 1, block_type: 'text' });
    await hooks.emit('llm:stream_aborted', { request_id, error: { type: 'StreamError', msg: 'lost' } });
    const toolDelta = { request_id, block_index: 0, block_type: 'tool_use', sequence: 0, text: '{' } as const;
    // @ts-expect-error no delta for a tool_use block
    await hooks.emit('llm:stream_block_delta', toolDelta);
    // @ts-expect-error the old payload: index and delta instead of block_index, sequence and text
    await hooks.emit('llm:stream_block_delta', { index: 0, block_type: 'text', delta: 'a' });
    // @ts-expect-error block_type tool_call is the content block's name, not the stream's
    await hooks.emit('llm:stream_block_start', { request_id, block_index: 0, block_type: 'tool_call' });
  });

  it('keeps every payload a record (the session adds session_id, parent_id, timestamp)', () => {
    expectTypeOf<EventPayloads[EventName]>().toExtend<EventData>();
    expectTypeOf<ToolPreEvent>().toHaveProperty('session_id').toEqualTypeOf<unknown>();
  });
});

describe('emit', () => {
  it('checks the payload of a canonical event', async () => {
    const hooks = registry();
    const seen: EventData[] = [];
    hooks.register('tool:pre', (_event, data) => {
      seen.push(data);
    });

    await hooks.emit('tool:pre', { tool_name: 'bash', tool_input: { command: 'ls' } });
    // @ts-expect-error tool_name must be a string
    await hooks.emit('tool:pre', { tool_name: 42, tool_input: {} });
    // @ts-expect-error tool_input is required
    await hooks.emit('tool:pre', { tool_name: 'bash' });
    // @ts-expect-error the constant is typed as its name
    await hooks.emit(events.TOOL_PRE, { tool_name: 'bash', tool_input: 'ls' });
    // @ts-expect-error status is 'ok' or 'error'
    await hooks.emit('llm:response', { provider: 'p', model: 'm', status: 'done', duration_ms: 1 });
    // Fields beyond the type are fine: emitters add their own.
    await hooks.emit('tool:pre', { tool_name: 'bash', tool_input: {}, my_field: true });

    // The types change nothing at run time: every call above was emitted as before.
    expect(seen.map((d) => d.tool_name)).toEqual(['bash', 42, 'bash', 'bash', 'bash']);
  });

  it('refuses a name outside the map: a literal, a string, a misspelt canonical name', async () => {
    const hooks = registry();
    const name: string = 'tool:pre';
    const seen: string[] = [];
    hooks.register(dynamicEvent('my:custom'), (event) => {
      seen.push(event);
    });
    // @ts-expect-error my:custom is declared by no module
    await hooks.emit('my:custom', { anything: [1, 'two'] });
    // @ts-expect-error my:custom is declared by no module (no payload either)
    await hooks.emit('my:custom');
    // @ts-expect-error a string may be any name: dynamicEvent says so where it is written
    await hooks.emit(name, { odd: 1 });
    // @ts-expect-error tool:pres is not tool:pre
    await hooks.emit('tool:pres', { tool_name: 'bash', tool_input: {} });
    // @ts-expect-error the old explicit opt-out is gone: emit<string> does not satisfy EventKey
    await hooks.emit<string>('tool:pre', {});
    // The types change nothing at run time: a refused name is still dispatched as before.
    expect(seen).toEqual(['my:custom', 'my:custom']);
  });

  it('takes a name known only at run time through dynamicEvent, with any record', async () => {
    const hooks = registry();
    const fromConfig: string = JSON.parse('"my:custom"');
    const seen: EventData[] = [];
    hooks.register(dynamicEvent(fromConfig), (event, data) => {
      expectTypeOf(event).toEqualTypeOf<DynamicEventName>();
      expectTypeOf(data).toEqualTypeOf<EventData>();
      seen.push(data);
    });
    const results: EmitResult[] = [
      await hooks.emit(dynamicEvent(fromConfig), { anything: [1, 'two'], nested: { ok: true } }),
      await hooks.emit(dynamicEvent('my:custom')),
      // A canonical name read at run time reaches the typed handlers, with data as a JavaScript emitter could send it.
      await hooks.emit(dynamicEvent('tool:pre'), {}),
    ];
    expect(results.map((r) => r.action)).toEqual(['continue', 'continue', 'continue']);
    expect(seen).toHaveLength(2);
    expect(dynamicEvent(fromConfig)).toBe('my:custom');
  });

  it('checks emitAndCollect the same way', async () => {
    const hooks = registry();
    hooks.register('tool:pre', (_event, data) => ({ data: { name: data.tool_name } }));
    // @ts-expect-error tool_name must be a string
    await hooks.emitAndCollect('tool:pre', { tool_name: 1, tool_input: {} });
    expect(await hooks.emitAndCollect('tool:pre', { tool_name: 'bash', tool_input: {} })).toEqual([
      { name: 'bash' },
    ]);
  });
});

describe('register', () => {
  it('gives a handler of tool:pre the tool:pre payload', async () => {
    const hooks = registry();
    const names: string[] = [];
    hooks.register('tool:pre', (event, data) => {
      expectTypeOf(event).toEqualTypeOf<'tool:pre'>();
      expectTypeOf(data).toEqualTypeOf<ToolPreEvent>();
      expectTypeOf(data.tool_name).toEqualTypeOf<string>();
      expectTypeOf(data.tool_input).toEqualTypeOf<Record<string, unknown>>();
      expectTypeOf(data.tool_call_id).toEqualTypeOf<string | undefined>();
      names.push(data.tool_name);
    });
    hooks.on(events.TOOL_POST, (_event, data) => {
      expectTypeOf(data).toEqualTypeOf<ToolPostEvent>();
      expectTypeOf(data.result?.success).toEqualTypeOf<boolean | undefined>();
    });
    hooks.register('tool:pre', (_event, data) => {
      // @ts-expect-error tool_name is a string, not a number
      const n: number = data.tool_name;
      return n > 0 ? undefined : { action: 'continue' };
    });

    await hooks.emit('tool:pre', { tool_name: 'grep', tool_input: {} });
    expect(names).toEqual(['grep']);
  });

  it('refuses a handler of a name outside the map, takes a dynamic one, and untyped handlers for typed events', () => {
    const hooks = registry();
    // @ts-expect-error my:custom is declared by no module
    hooks.register('my:custom', () => {});
    // @ts-expect-error on is register: the same check
    hooks.on('my:custom', () => {});
    const name: string = 'tool:pre';
    // @ts-expect-error a string may be any name
    hooks.register(name, () => {});
    hooks.register(dynamicEvent(name), (_event, data) => {
      expectTypeOf(data).toEqualTypeOf<EventData>();
    });
    // A handler written for every event (a logger) fits any event, typed or not.
    const logAll: HookHandler = (_event, data) => {
      expectTypeOf(data).toEqualTypeOf<EventData>();
    };
    for (const event of ALL_EVENTS) hooks.register(event, logAll);
    hooks.register('tool:pre', logAll);
    hooks.register('session:end', logAll);
    expect(hooks.listHandlers('tool:pre')['tool:pre']).toHaveLength(4);
    expect(hooks.listHandlers('my:custom')['my:custom']).toHaveLength(2);
  });

  it('types HookHandler by its event', () => {
    expectTypeOf<Parameters<HookHandler<'tool:pre'>>[1]>().toEqualTypeOf<ToolPreEvent>();
    expectTypeOf<Parameters<HookHandler>>().toEqualTypeOf<[event: string, data: EventData]>();
    const handler: HookHandler<'tool:pre'> = (_event, data) => {
      expectTypeOf(data.tool_name).toEqualTypeOf<string>();
    };
    registry().register('tool:pre', handler);
    // @ts-expect-error a tool:pre handler does not fit session:end
    registry().register('session:end', handler);
  });
});

describe('module augmentation', () => {
  it('adds a typed event', async () => {
    const hooks = registry();
    const seen: number[] = [];
    hooks.register('test:augmented', (_event, data) => {
      expectTypeOf(data.problems).toEqualTypeOf<number>();
      seen.push(data.problems);
    });
    await hooks.emit('test:augmented', { file: 'a.ts', problems: 2 });
    // @ts-expect-error problems must be a number
    await hooks.emit('test:augmented', { file: 'a.ts', problems: 'none' });
    // @ts-expect-error file is required
    await hooks.emit('test:augmented', { problems: 0 });
    expect(seen).toEqual([2, 'none', 0]);
  });
});

describe('EventSink', () => {
  it('is what a HookRegistry is, and checks names and payloads the same way', async () => {
    const hooks = registry();
    const seen: string[] = [];
    hooks.register('test:augmented', (event) => {
      seen.push(event);
    });
    const sink: EventSink = hooks;
    await sink.emit('test:augmented', { file: 'a.ts', problems: 1 });
    await sink.emit(dynamicEvent('test:augmented'), { anything: true });
    // @ts-expect-error my:custom is declared by no module
    await sink.emit('my:custom', {});
    // @ts-expect-error problems must be a number
    await sink.emit('test:augmented', { file: 'a.ts', problems: 'none' });
    expect(seen).toEqual(['test:augmented', 'test:augmented', 'test:augmented']);
  });

  it('takes a recorder with its own typed emit', async () => {
    const recorded: [string, EventData][] = [];
    const recorder = {
      emit<E extends EventKey>(event: E, data: EventPayload<E>): Promise<void> {
        recorded.push([event, data]);
        return Promise.resolve();
      },
    };
    const sink: EventSink = recorder;
    await sink.emit('tool:pre', { tool_name: 'bash', tool_input: {} });
    expect(recorded).toEqual([['tool:pre', { tool_name: 'bash', tool_input: {} }]]);
  });
});
