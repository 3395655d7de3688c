/**
 * context-simple: what it costs per agent-loop step, and how
 * `getMessagesForRequest` scales.
 *
 * - Loop step: the headline scenario over 1,000 steps (1 and 8 tool calls per
 *   step) through an `AmplifierSession`, once with a bare array context (no
 *   copy, no accounting: loop-basic and the session alone) and once with
 *   context-simple, next to the hand-written loop, in interleaved rounds.
 * - Scaling: histories of 1k, 10k and 100k messages (user prompts, assistant
 *   tool calls, tool results of ~400 characters, assistant answers) with a
 *   budget the history fits in (no compaction) and with half its tokens
 *   (compaction: a fresh manager's first request, then later requests, which
 *   reuse what the first kept); and `addMessage` per message.
 *
 * `--also <label>=<path of another build's dist/index.js>` measures another
 * build of context-simple (an older commit built elsewhere) in the same run.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { Message } from '@amplifier/core';
import { type Adapter, measure } from './adapters/scenario.js';
import {
  type Build,
  fmt,
  type Group,
  type GroupOptions,
  meets,
  missing,
  notAvailable,
  type Row,
  runChild,
  sampleRow,
  summarize,
} from './stats.js';

const GROUP = 'context';
const SIZES = [1_000, 10_000, 100_000];

/** `n` messages in groups of four: user, assistant with a tool call, tool result, assistant text. */
export function history(n: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; messages.length < n; i++) {
    const id = `call_${i}`;
    const round: Message[] = [
      {
        role: 'user',
        content: `Step ${i}: look at file src/module-${i % 97}.ts and tell me what the exported function does.`,
      },
      {
        role: 'assistant',
        content: 'Let me read it.',
        tool_calls: [{ id, tool: 'read_file', arguments: { file_path: `src/module-${i % 97}.ts` } }],
      },
      {
        role: 'tool',
        tool_call_id: id,
        content: `     1\texport function handler${i}(input: string) {\n${'     2\t  return input.trim().toLowerCase(); // normalise\n'.repeat(7)}`,
      },
      {
        role: 'assistant',
        content: `The function handler${i} trims and lowercases its input and returns it; it has no side effects and never throws.`,
      },
    ];
    for (const m of round) if (messages.length < n) messages.push(m);
  }
  return messages;
}

/** µs per step, one sample per round, by system label and tool calls per step. */
type StepTimes = Record<string, Record<string, number[]>>;

/** Child task: the hand-written loop and a session with each context, interleaved rounds of `steps` steps. */
async function stepTimes(args: { runs: number; steps: number; also: Build[] }): Promise<StepTimes> {
  const plain = await import('./adapters/plain.js');
  const { createAdapter, ARRAY_CONTEXT_SOURCE } = await import('./adapters/amplifier.js');
  const systems: [string, Adapter][] = [
    ['plain', await plain.createAdapter()],
    [
      'array',
      await createAdapter({ context: { module: 'bench-array-context', source: ARRAY_CONTEXT_SOURCE } }),
    ],
    ['this', await createAdapter()],
  ];
  for (const build of args.also) {
    systems.push([
      build.label,
      await createAdapter({ context: { module: 'context-simple', source: build.path } }),
    ]);
  }
  const times: StepTimes = {};
  for (const [label, adapter] of systems) {
    times[label] = { '1': [], '8': [] };
    for (const tools of [1, 8]) {
      await measure(adapter, 10, tools, 3); // warm-up
      await measure(adapter, 100, tools, 1);
    }
  }
  for (const tools of [1, 8]) {
    for (let round = 0; round < args.runs; round++) {
      for (const [label, adapter] of systems) {
        times[label]![String(tools)]!.push(await measure(adapter, args.steps, tools, 2));
      }
    }
  }
  return times;
}

/** µs per step by system label and number of steps. */
type GrowthTimes = Record<string, Record<string, number[]>>;

/** Steps a growth sample covers at least: short conversations run several times per sample. */
const GROWTH_SAMPLE_STEPS = 2_000;

/**
 * Conversations of `n` steps in one growth sample: about `GROWTH_SAMPLE_STEPS` steps whatever `n`,
 * so every sample pays its share of garbage collection (one 100-step conversation, about 3 ms,
 * rarely includes a collection; one 5,000-step conversation always does).
 */
export function growthConversations(n: number): number {
  return Math.max(1, Math.ceil(GROWTH_SAMPLE_STEPS / n));
}

/**
 * Child task: 8 tool calls per step over conversations of each size, the
 * hand-written loop and a session with context-simple at its default 200k-token
 * budget (the provider reports no window), so long conversations compact; the
 * echo tool has no execution profile, as most third-party tools. Interleaved rounds;
 * each sample covers about the same number of steps (`growthConversations`).
 */
async function growth(args: { runs: number; sizes: number[]; also?: Build[] }): Promise<GrowthTimes> {
  const plain = await import('./adapters/plain.js');
  const { createAdapter, ARRAY_CONTEXT_SOURCE } = await import('./adapters/amplifier.js');
  const arrayContext = { module: 'bench-array-context', source: ARRAY_CONTEXT_SOURCE };
  const systems: [string, Adapter][] = [
    ['plain', await plain.createAdapter()],
    ['session', await createAdapter({ defaultBudget: true, noProfile: true })],
    [
      'afresh',
      await createAdapter({
        defaultBudget: true,
        noProfile: true,
        context: { module: 'context-simple', config: { sticky_compaction: false } },
      }),
    ],
    // loop-basic and the session alone over the same history (no copy, no accounting, no compaction).
    ['array', await createAdapter({ noProfile: true, context: arrayContext })],
  ];
  for (const build of args.also ?? []) {
    systems.push([
      build.label,
      await createAdapter({
        defaultBudget: true,
        noProfile: true,
        context: { module: 'context-simple', source: build.path },
      }),
    ]);
  }
  /** Compacting the whole history on every request costs O(history) per step: not run past 5,000 steps. */
  const AFRESH_MAX = 5_000;
  const times: GrowthTimes = {};
  for (const [label, adapter] of systems) {
    times[label] = Object.fromEntries(args.sizes.map((n) => [String(n), []]));
    await measure(adapter, 10, 8, 3); // warm-up, compaction included
    await measure(adapter, 100, 8, 2);
    await measure(adapter, 1_500, 8, 1);
  }
  for (let round = 0; round < args.runs; round++) {
    for (const n of args.sizes) {
      for (const [label, adapter] of systems) {
        if (label === 'afresh' && n > AFRESH_MAX) continue;
        times[label]![String(n)]!.push(await measure(adapter, n, 8, growthConversations(n)));
      }
    }
  }
  return times;
}

interface Sample {
  none: number[];
  first: number[];
  later: number[];
  addUs: number[];
  kept: number;
  tokens: number;
}

/** Child task: for `n` messages, time `getMessagesForRequest` and `addMessage` of a build of context-simple. */
async function requestTimes(args: { n: number; calls: number; path?: string }): Promise<Sample> {
  const { SimpleContextManager, estimateTokens } = (await import(
    args.path === undefined ? '@amplifier/context-simple' : pathToFileURL(args.path).href
  )) as typeof import('@amplifier/context-simple');
  const messages = history(args.n);
  const tokens = messages.reduce((sum, m) => sum + estimateTokens(m), 0);
  const big = tokens * 10;
  const half = Math.floor(tokens / 2);
  // A fresh manager's first compacting request (nothing kept from earlier requests); two unrecorded first.
  const first: number[] = [];
  for (let r = 0; r < args.calls + 2; r++) {
    const fresh = new SimpleContextManager({});
    await fresh.setMessages(messages);
    const start = performance.now();
    await fresh.getMessagesForRequest({ tokenBudget: half });
    if (r >= 2) first.push(performance.now() - start);
  }
  const addUs: number[] = [];
  for (let r = 0; r < 3; r++) {
    const fresh = new SimpleContextManager({});
    const start = performance.now();
    for (const m of messages) await fresh.addMessage(m);
    addUs.push(((performance.now() - start) * 1000) / args.n);
  }
  const context = new SimpleContextManager({});
  await context.setMessages(messages);
  const time = async (tokenBudget: number): Promise<{ ms: number; length: number }> => {
    const start = performance.now();
    const view = await context.getMessagesForRequest({ tokenBudget });
    return { ms: performance.now() - start, length: view.length };
  };
  await time(big);
  await time(half);
  const none: number[] = [];
  const later: number[] = [];
  let kept = 0;
  for (let i = 0; i < args.calls; i++) {
    none.push((await time(big)).ms);
    const c = await time(half);
    later.push(c.ms);
    kept = c.length;
  }
  return { none, first, later, addUs, kept, tokens };
}

export const tasks = { stepTimes, requestTimes, growth };

const timed = (what: string, samples: number[], unit: string, extra: Partial<Row> = {}): Row =>
  sampleRow(GROUP, what, samples, unit, extra);

async function stepRows(options: GroupOptions): Promise<Row[]> {
  const steps = options.quick ? 200 : 1000;
  const runs = Math.max(7, options.runs);
  options.log(`context: loop step, ${steps} steps, ${runs} interleaved rounds`);
  const { value } = await runChild<StepTimes>('child.js', [
    GROUP,
    'stepTimes',
    JSON.stringify({ runs, steps, also: options.also }),
  ]);
  type Median = (label: string) => number;
  const systems: { label: string; name: string; note?: (median: Median) => string }[] = [
    { label: 'plain', name: 'hand-written loop' },
    {
      label: 'array',
      name: 'loop-basic + a bare array context (session)',
      note: () =>
        'a context that pushes to one array and hands it out as is: loop-basic and the session alone',
    },
    {
      label: 'this',
      name: 'loop-basic + context-simple (session)',
      note: (m) =>
        `context-simple's share: ${fmt(m('this') - m('array'))} µs/step (this row minus the bare-array-context row)`,
    },
    ...options.also.map((b) => ({
      label: b.label,
      name: `loop-basic + context-simple ${b.label} (session)`,
      note: (m: Median) => `${fmt(m(b.label) / m('this'))}× this workspace's build, same rounds`,
    })),
  ];
  const rows: Row[] = [];
  for (const tools of ['1', '8']) {
    const median: Median = (label) => summarize(value[label]![tools]!).median;
    for (const { label, name, note } of systems) {
      const what = `loop step, ${tools} tool call(s)/step, ${fmt(steps)} steps: ${name}`;
      rows.push(
        timed(what, value[label]![tools]!, 'µs', {
          ratio: `${fmt(median(label) / median('plain'))}×`,
          ...(note !== undefined && { note: note(median) }),
        }),
      );
    }
  }
  return rows;
}

async function growthRows(options: GroupOptions): Promise<Row[]> {
  const sizes = options.quick ? [100, 1_000, 5_000] : [100, 1_000, 5_000, 20_000];
  const runs = Math.max(3, Math.min(options.runs, 5));
  options.log(`context: 8 tool calls/step at N = ${sizes.join(', ')}, default budget, ${runs} rounds`);
  const { value } = await runChild<GrowthTimes>('child.js', [
    GROUP,
    'growth',
    JSON.stringify({ runs, sizes, also: options.also }),
  ]);
  const afresh = (n: number): string => {
    const samples = value.afresh![String(n)]!;
    return samples.length === 0 ? 'not run (too slow)' : `${fmt(summarize(samples).median)} µs/step`;
  };
  const alsoNote = (n: number): string =>
    options.also
      .map((b) => `; ${b.label}: ${fmt(summarize(value[b.label]![String(n)]!).median)} µs/step`)
      .join('');
  const rows: Row[] = [];
  const medians: number[] = [];
  const plainMedians: number[] = [];
  const arrayMedians: number[] = [];
  for (const n of sizes) {
    const session = summarize(value.session![String(n)]!).median;
    const plain = summarize(value.plain![String(n)]!).median;
    const array = summarize(value.array![String(n)]!).median;
    medians.push(session);
    arrayMedians.push(array);
    plainMedians.push(plain);
    rows.push(
      timed(
        `8 tool calls/step (echo without execution profile), ${fmt(n)} steps, context-simple at its 200k-token default budget (session)`,
        value.session![String(n)]!,
        'µs',
        {
          ratio: `${fmt(session / plain)}×`,
          note: `hand-written loop, same rounds: ${fmt(plain)} µs/step; loop-basic with a bare array context (the history kept, no copy, no compaction): ${fmt(array)} µs/step; with \`sticky_compaction: false\` (the whole history compacted on every request, as before): ${afresh(n)}; compaction starts at about 1,000 steps (9,000 messages); ${growthConversations(n)} conversation(s) per sample${alsoNote(n)}`,
        },
      ),
    );
  }
  const spread = Math.max(...medians) / Math.min(...medians);
  rows.push({
    group: GROUP,
    what: `8 tool calls/step: slowest over fastest µs/step across N = ${sizes.map(fmt).join(', ')}`,
    value: `${fmt(spread)}×`,
    // The hand-written loop keeps its history too: its own spread shows what retention alone costs.
    note: [
      `the hand-written loop's own spread, same rounds: ${fmt(Math.max(...plainMedians) / Math.min(...plainMedians))}×`,
      `loop-basic with a bare array context: ${fmt(Math.max(...arrayMedians) / Math.min(...arrayMedians))}×`,
      ...options.also.map((b) => {
        const m = sizes.map((n) => summarize(value[b.label]![String(n)]!).median);
        return `${b.label}: ${fmt(Math.max(...m) / Math.min(...m))}×`;
      }),
    ].join('; '),
    target: '≤ 1.5×',
    meets: meets(spread, 1.5),
  });
  return rows;
}

async function scalingRows(options: GroupOptions, n: number, build: Build | undefined): Promise<Row[]> {
  const calls = Math.max(options.runs, n >= 100_000 ? 5 : 20);
  const { value } = await runChild<Sample>('child.js', [
    GROUP,
    'requestTimes',
    JSON.stringify({ n, calls, path: build?.path }),
  ]);
  const at10k = n === 10_000 && build === undefined;
  const of = build === undefined ? '' : ` [${build.label}]`;
  return [
    timed(
      `getMessagesForRequest${of}, ${fmt(n)} messages (~${fmt(value.tokens)} tokens), no compaction needed`,
      value.none,
      'ms',
      at10k ? { target: '≤ 0.5 ms', meets: meets(summarize(value.none).median, 0.5) } : {},
    ),
    timed(
      `getMessagesForRequest${of}, ${fmt(n)} messages, compacting to half the tokens' budget, a fresh manager's first request`,
      value.first,
      'ms',
      at10k ? { target: '≤ 20 ms', meets: meets(summarize(value.first).median, 20) } : {},
    ),
    timed(
      `getMessagesForRequest${of}, ${fmt(n)} messages, compacting, later requests (keeps ${fmt(value.kept)})`,
      value.later,
      'ms',
      at10k ? { target: '≤ 20 ms', meets: meets(summarize(value.later).median, 20) } : {},
    ),
    timed(`addMessage${of}, ${fmt(n)} messages, per message`, value.addUs, 'µs'),
  ];
}

async function run(options: GroupOptions): Promise<Row[]> {
  const reason = await missing('@amplifier/context-simple');
  if (reason !== undefined) return [notAvailable(GROUP, 'context-simple', reason)];
  const rows = [...(await stepRows(options)), ...(await growthRows(options))];
  for (const n of options.quick ? [1_000, 10_000] : SIZES) {
    for (const build of [undefined, ...options.also]) {
      options.log(`context: ${n} messages${build === undefined ? '' : ` (${build.label})`}`);
      rows.push(...(await scalingRows(options, n, build)));
    }
  }
  return rows;
}

export const group: Group = { name: GROUP, title: 'context-simple: cost per loop step and scaling', run };
