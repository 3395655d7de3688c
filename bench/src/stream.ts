/**
 * The kernel's added cost per streamed fragment. (i) `hooks.emit` of one
 * `llm:stream_block_delta` with one handler, awaited, as a provider emits it.
 * (ii) A whole turn streamed to the app: a provider whose `complete()` feeds
 * `fragments` text fragments through the provider kit's `BlockEvents` to the
 * session's hooks (loop-basic + context-simple, a real `AmplifierSession`),
 * read with `streamTurn()`, no renderer; per fragment is the turn's
 * time over its fragments (the turn's own fixed cost, tens of µs, spread over
 * them), in a child process of its own. Between them, for attribution:
 * `BlockEvents` over a bare registry with one handler, interleaved with (i)
 * in another child. (iii) The
 * CLI's time to the first rendered token (stream-cli.ts).
 */
import { performance } from 'node:perf_hooks';
import {
  collectGarbage,
  fmt,
  type Group,
  type GroupOptions,
  meets,
  notAvailable,
  type Row,
  runChild,
  summarize,
} from './stats.js';
import { cliBin, firstTokenMs } from './stream-cli.js';

const GROUP = 'stream';

const ignore = (): void => {};

/**
 * A ready turn: run it, get the number of `text_delta` events the app read
 * (`ui`: the turn as UI message stream SSE frames, encoded as a Response body is).
 */
type Turn = (ui?: boolean) => Promise<number>;

async function streamedSession(fragments: number): Promise<{ turn: Turn; close(): Promise<void> }> {
  const { AmplifierSession } = await import('@amplifier/core');
  const { streamTurn, toUIMessageChunks, uiMessageFrames } = await import('@amplifier/server');
  type Core = typeof import('@amplifier/core');
  const { BlockEvents } = await import('@amplifier/provider-http');
  const { mount: mountLoop } = await import('@amplifier/loop-basic');
  const { mount: mountContext } = await import('@amplifier/context-simple');
  type StreamEvent = import('@amplifier/core').StreamEvent;
  type ChatResponse = import('@amplifier/core').ChatResponse;
  type Coordinator = import('@amplifier/core').Coordinator;
  const response: ChatResponse = { content: [{ type: 'text', text: 'done' }], finish_reason: 'stop' };
  const script: StreamEvent[] = [];
  for (let i = 0; i < fragments; i++) script.push({ type: 'text.delta', index: 0, text: 'tok ' });
  script.push({ type: 'message.end', response });
  const mounts: Record<string, (c: Coordinator) => Promise<unknown> | unknown> = {
    'loop-basic': (c) => mountLoop(c, {}),
    'context-simple': (c) => mountContext(c, {}),
    'bench-stream-provider': (c) =>
      c.mount(
        'providers',
        {
          name: 'streamer',
          getInfo: () => ({
            id: 'streamer',
            display_name: 'Streaming benchmark model',
            defaults: { context_window: 1_000_000, max_output_tokens: 8192 },
          }),
          listModels: async () => [],
          async complete(): Promise<ChatResponse> {
            // As ProviderCalls emits: the hook result dropped, a failure only logged.
            const blocks = new BlockEvents(
              (event, data) => c.hooks.emit(event, data).then(ignore, ignore),
              'req-bench',
            );
            for (const event of script) await blocks.on(event);
            return response;
          },
          parseToolCalls: () => [],
        },
        { name: 'streamer' },
      ),
  };
  const loader: import('@amplifier/core').ModuleLoaderLike = {
    async load(id) {
      const mount = mounts[id];
      if (mount === undefined) throw new Error(`no module '${id}'`);
      return { id, type: undefined, mount: async (c) => (await mount(c)) as undefined };
    },
  };
  const session: InstanceType<Core['AmplifierSession']> = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [{ module: 'bench-stream-provider' }],
    },
    { loader },
  );
  await session.initialize();
  return {
    async turn(ui = false) {
      // A fresh context each turn: the history stays one user and one assistant message.
      await session.coordinator.get('context')?.clear();
      let deltas = 0;
      if (ui) {
        const encoder = new TextEncoder();
        for await (const frame of uiMessageFrames(toUIMessageChunks(streamTurn(session, 'go')))) {
          if (encoder.encode(frame).byteLength > 0 && frame.includes('"text-delta"')) deltas++;
        }
        return deltas;
      }
      for await (const event of streamTurn(session, 'go')) if (event.type === 'text_delta') deltas++;
      return deltas;
    },
    close: () => session.cleanup(),
  };
}

/** Child task: ns per fragment, `runs` interleaved samples each of `emit` (i) and `kit`. */
async function partsCost(args: {
  runs: number;
  emits: number;
  fragments: number;
  turns: number;
}): Promise<Record<'emit' | 'kit', number[]>> {
  const { HookRegistry } = await import('@amplifier/core');
  const { BlockEvents } = await import('@amplifier/provider-http');
  const hooks = new HookRegistry();
  let seen = 0;
  hooks.register(
    'llm:stream_block_delta',
    (_event, data) => {
      seen += data.text.length;
    },
    { name: 'renderer' },
  );
  const payload = {
    request_id: '5f0c6f3e-2b8e-4c1a-9d43-4a3f9f1b2c7d',
    block_index: 0,
    block_type: 'text' as const,
    sequence: 0,
    text: 'tok ',
  };
  const emitSample = async (): Promise<number> => {
    collectGarbage();
    const start = performance.now();
    for (let n = 0; n < args.emits; n++) {
      payload.sequence = n;
      await hooks.emit('llm:stream_block_delta', payload);
    }
    return ((performance.now() - start) * 1e6) / args.emits;
  };
  const fragments: import('@amplifier/core').StreamEvent[] = [];
  for (let i = 0; i < args.fragments; i++) fragments.push({ type: 'text.delta', index: 0, text: 'tok ' });
  const kitSample = async (): Promise<number> => {
    collectGarbage();
    const start = performance.now();
    for (let t = 0; t < args.turns; t++) {
      const blocks = new BlockEvents(
        (event, data) => hooks.emit(event, data).then(ignore, ignore),
        'req-bench',
      );
      for (const event of fragments) await blocks.on(event);
      await blocks.end();
    }
    return ((performance.now() - start) * 1e6) / (args.turns * args.fragments);
  };
  await emitSample(); // warm-up
  await kitSample();
  const out: Record<'emit' | 'kit', number[]> = { emit: [], kit: [] };
  for (let round = 0; round < args.runs; round++) {
    out.emit.push(await emitSample());
    out.kit.push(await kitSample());
  }
  if (seen === 0) throw new Error('the handler saw nothing');
  return out;
}

/**
 * Child task: ns per fragment of whole streamed turns (ii), `runs` samples.
 * In a process of its own: the bare registries of the other rows (payloads
 * without the session's default fields) would make the shared call sites
 * polymorphic, which a process running sessions never sees.
 */
async function turnCost(args: {
  runs: number;
  fragments: number;
  turns: number;
}): Promise<Record<'plain' | 'ui', number[]>> {
  const streamed = await streamedSession(args.fragments);
  const turnSample = async (ui: boolean): Promise<number> => {
    collectGarbage();
    // A forced full GC leaves V8's young generation at its smallest; one untimed turn lets it
    // grow back to the size a streaming process runs with, so the sample measures steady state.
    await streamed.turn(ui);
    const start = performance.now();
    for (let t = 0; t < args.turns; t++) {
      const deltas = await streamed.turn(ui);
      if (deltas !== args.fragments) throw new Error(`read ${deltas} of ${args.fragments} fragments`);
    }
    return ((performance.now() - start) * 1e6) / (args.turns * args.fragments);
  };
  await turnSample(false); // warm-up
  await turnSample(true);
  const out: Record<'plain' | 'ui', number[]> = { plain: [], ui: [] };
  for (let round = 0; round < args.runs; round++) {
    out.plain.push(await turnSample(false));
    out.ui.push(await turnSample(true));
  }
  await streamed.close();
  return out;
}

export const tasks = { partsCost, turnCost };

async function run(options: GroupOptions): Promise<Row[]> {
  const emits = options.quick ? 20_000 : 200_000;
  const fragments = options.quick ? 2_000 : 10_000;
  const turns = options.quick ? 2 : 5;
  options.log(`stream: ${emits} emits, ${turns} turns of ${fragments} fragments per sample`);
  const runs = Math.max(5, options.runs);
  const parts = await runChild<Record<'emit' | 'kit', number[]>>('child.js', [
    GROUP,
    'partsCost',
    JSON.stringify({ runs, emits, fragments, turns }),
  ]);
  const turns_ = await runChild<Record<'plain' | 'ui', number[]>>('child.js', [
    GROUP,
    'turnCost',
    JSON.stringify({ runs, fragments, turns }),
  ]);
  const bin = cliBin();
  const ttftRuns = options.quick ? 5 : Math.max(10, options.runs);
  const ttft = bin === undefined ? undefined : summarize(await firstTokenMs(bin, ttftRuns, 'open'));
  const cold = bin === undefined ? undefined : summarize(await firstTokenMs(bin, ttftRuns, 'cold'));
  const emit = summarize(parts.value.emit);
  const kit = summarize(parts.value.kit);
  const turn = summarize(turns_.value.plain);
  const ui = summarize(turns_.value.ui);
  return [
    {
      group: GROUP,
      what: "`hooks.emit('llm:stream_block_delta', payload)` with 1 handler, awaited, per fragment",
      value: `${fmt(emit.median)} ns`,
      range: `${fmt(emit.min)}–${fmt(emit.max)}`,
      ratio: '1×',
      target: '≤ 1,000 ns (1 µs)',
      meets: meets(emit.median, 1000),
      note: 'ratio column: relative to this row',
    },
    {
      group: GROUP,
      what: 'provider kit `BlockEvents.on(text.delta)` → `hooks.emit` with 1 handler (no session), per fragment',
      value: `${fmt(kit.median)} ns`,
      range: `${fmt(kit.min)}–${fmt(kit.max)}`,
      ratio: `${fmt(kit.median / emit.median)}×`,
    },
    {
      group: GROUP,
      what: `provider kit \`BlockEvents\` → hooks → \`streamTurn()\` iterator (loop-basic + context-simple), no renderer, per fragment (${fragments} a turn)`,
      value: `${fmt(turn.median)} ns`,
      range: `${fmt(turn.min)}–${fmt(turn.max)}`,
      ratio: `${fmt(turn.median / emit.median)}×`,
      target: '≤ 2,000 ns (2 µs)',
      meets: meets(turn.median, 2000),
    },
    {
      group: GROUP,
      what: 'a turn over HTTP: the same turn as UI message stream SSE frames (`toUIMessageChunks` → `uiMessageFrames` → bytes), cost per fragment over the row above',
      value: `${fmt(ui.median - turn.median)} ns`,
      range: `${fmt(ui.min)}–${fmt(ui.max)} (whole)`,
      ratio: `${fmt(ui.median / turn.median)}× the iterator`,
      target: '≤ 2,000 ns (2 µs)',
      meets: meets(ui.median - turn.median, 2000),
      note: 'interleaved samples in one child process; the socket write is not included',
    },
    ttft === undefined || cold === undefined
      ? notAvailable(GROUP, 'CLI: time to the first rendered token', 'the CLI is not built (pnpm build)')
      : {
          group: GROUP,
          what: `\`amplifier run --provider openai\` against a local server, stream open: first stdout byte after the server wrote the first text chunk (${ttft.n} fresh processes)`,
          value: `${fmt(ttft.median)} ms`,
          range: `${fmt(ttft.min)}–${fmt(ttft.max)}`,
          target: '≤ 5 ms',
          meets: meets(ttft.median, 5),
          note: "status, headers and a chunk without text (OpenAI's role delta) first, as real APIs send them; the clock runs from the write of the first text chunk, 50 ms later, to the first byte of the CLI's stdout arriving here: SSE parsing, the provider, hooks, renderer and the pipe, each run for the first time in that process",
        },
    ...(cold === undefined
      ? []
      : [
          {
            group: GROUP,
            what: `the same, cold: status, headers and the first text chunk in one write (${cold.n} fresh processes)`,
            value: `${fmt(cold.median)} ms`,
            range: `${fmt(cold.min)}–${fmt(cold.max)}`,
            note: "also covers the HTTP client's first response in a fresh process (undici's parser and streams run for the first time), which a real API's first bytes pay before its first token",
          } satisfies Row,
        ]),
  ];
}

export const group: Group = { name: GROUP, title: 'Token streaming: cost per fragment', run };
