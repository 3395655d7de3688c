/**
 * hooks-otel: what a tool call's span costs. `tool:pre` + `tool:post` emitted
 * back to back on a coordinator inside an open turn, with hooks-otel mounted
 * and the OpenTelemetry SDK registered (BasicTracerProvider, the batch span
 * processor, an exporter that drops everything), against the same emits with
 * no handler; and with hooks-otel but no SDK (the API's no-op tracer). Three
 * coordinators in one child process, interleaved rounds.
 *
 * The ≤ 3 µs target is hooks-otel's own overhead: per round, the SDK row minus
 * the empty-handler row (the kernel's hook dispatch, which any hook module
 * costs) minus the SDK's own cost for the same span made directly (what any
 * instrumentation writing that span pays). The whole cost is reported next to it.
 */
import { performance } from 'node:perf_hooks';
import {
  collectGarbage,
  fmt,
  type Group,
  type GroupOptions,
  meets,
  missing,
  notAvailable,
  type Row,
  runChild,
  summarize,
} from './stats.js';

const GROUP = 'otel';

interface Sample {
  /** ns per tool call (tool:pre + tool:post): no handler, hooks-otel without an SDK, hooks-otel with the SDK. */
  bare: number[];
  /** The same emits with one empty handler per event: the hook registry's own share. */
  empty: number[];
  noSdk: number[];
  sdk: number[];
  /** ns per span of the SDK alone: the span hooks-otel writes for a tool call (same name, kind, attributes, explicit parent), started and ended directly, no hooks. */
  raw: number[];
  /** Per SDK round, ns: the SDK row − the empty-handler row − the bare SDK span (hooks-otel's own share). */
  own: number[];
  /** Per SDK round, ns: the SDK row − the no-handler row (the whole cost of tracing a tool call). */
  whole: number[];
  exported: number;
}

/** Child task: `runs` interleaved samples of `calls` tool calls each. */
async function spanCost(args: { runs: number; calls: number }): Promise<Sample> {
  const { Coordinator, silentLogger } = await import('@amplifier/core');
  const otel = await import('@amplifier/hooks-otel');
  const { context, SpanKind, trace } = await import('@opentelemetry/api');
  const sdk = await import('@opentelemetry/sdk-trace-base');
  let exported = 0;
  const exporter = {
    export(spans: unknown[], done: (result: { code: 0 }) => void): void {
      exported += spans.length;
      done({ code: 0 });
    },
    async shutdown(): Promise<void> {},
  };

  type Coord = InstanceType<typeof Coordinator>;
  const coordinator = async (sessionId: string, mounted: boolean): Promise<Coord> => {
    const c = new Coordinator({ sessionId, logger: silentLogger });
    c.hooks.setDefaultFields({ session_id: sessionId, parent_id: null });
    if (mounted) await otel.mount(c, {});
    await c.hooks.emit('session:start', { session_id: sessionId, parent_id: null });
    await c.hooks.emit('prompt:submit', { prompt: 'go' });
    return c;
  };
  const result = { success: true, output: 'ok' };
  const input = { text: 'hello' };
  const calls = async (c: Coord, n: number, round: number): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < n; i++) {
      const id = `call_${round}_${i}`;
      await c.hooks.emit('tool:pre', {
        tool_name: 'echo',
        tool_call_id: id,
        tool_input: input,
        parallel_group_id: 'g',
      });
      await c.hooks.emit('tool:post', { tool_name: 'echo', tool_call_id: id, tool_input: input, result });
    }
    return ((performance.now() - start) * 1e6) / n;
  };

  // Without an SDK first (the API's no-op tracer), then the SDK registered for good.
  const bare = await coordinator('bare', false);
  const noSdk = await coordinator('no-sdk', true);
  const out: Sample = { bare: [], empty: [], noSdk: [], sdk: [], raw: [], own: [], whole: [], exported: 0 };
  const empty = await coordinator('empty', false);
  const nothing = (): void => {};
  empty.hooks.register('tool:pre', nothing, { priority: 500 });
  empty.hooks.register('tool:post', nothing, { priority: 500 });
  for (let round = -1; round < args.runs; round++) {
    collectGarbage();
    const b = await calls(bare, args.calls, round);
    collectGarbage();
    const n = await calls(noSdk, args.calls, round);
    collectGarbage();
    const e = await calls(empty, args.calls, round);
    if (round >= 0) {
      out.bare.push(b);
      out.noSdk.push(n);
      out.empty.push(e);
    }
  }
  const provider = new sdk.BasicTracerProvider({
    // The processor's defaults (queue 2048, batches of 512), as an app would have them.
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  trace.setGlobalTracerProvider(provider);
  const traced = await coordinator('sdk', true);
  const tracer = trace.getTracer('bench');
  const root = tracer.startSpan('root');
  const parent = trace.setSpan(context.active(), root);
  // The span hooks-otel writes for a tool call, made directly: what any instrumentation writing
  // this span pays the SDK, whoever writes it.
  const rawSpans = (n: number, round: number): number => {
    const start = performance.now();
    for (let i = 0; i < n; i++) {
      const attributes = {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'echo',
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.call.id': `call_${round}_${i}`,
        'amplifier.tool.parallel_group_id': 'g',
      };
      tracer.startSpan('execute_tool echo', { kind: SpanKind.INTERNAL, attributes }, parent).end();
    }
    return ((performance.now() - start) * 1e6) / n;
  };
  for (let round = -1; round < args.runs; round++) {
    collectGarbage();
    const b = await calls(bare, args.calls, round);
    collectGarbage();
    const e = await calls(empty, args.calls, round);
    collectGarbage();
    const s = await calls(traced, args.calls, round);
    collectGarbage();
    const r = rawSpans(args.calls, round);
    if (round >= 0) {
      out.bare.push(b);
      out.empty.push(e);
      out.sdk.push(s);
      out.raw.push(r);
      out.own.push(s - e - r);
      out.whole.push(s - b);
    }
  }
  root.end();
  await traced.hooks.emit('session:end', { session_id: 'sdk', status: 'completed' });
  await provider.shutdown();
  out.exported = exported;
  return out;
}

export const tasks = { spanCost };

async function run(options: GroupOptions): Promise<Row[]> {
  const reason = (await missing('@amplifier/hooks-otel')) ?? (await missing('@opentelemetry/sdk-trace-base'));
  if (reason !== undefined) return [notAvailable(GROUP, 'hooks-otel', reason)];
  const calls = options.quick ? 5_000 : 20_000;
  options.log(`otel: ${calls} tool calls per sample`);
  const { value, peakRssMb } = await runChild<Sample>('child.js', [
    GROUP,
    'spanCost',
    JSON.stringify({ runs: Math.max(5, options.runs), calls }),
  ]);
  const bare = summarize(value.bare);
  const noSdk = summarize(value.noSdk);
  const sdk = summarize(value.sdk);
  const raw = summarize(value.raw);
  const empty = summarize(value.empty);
  const own = summarize(value.own);
  const whole = summarize(value.whole);
  const us = (ns: number): string => `${fmt(ns / 1000)}`;
  return [
    {
      group: GROUP,
      what: 'a tool call without hooks-otel (`tool:pre` + `tool:post`, no handler)',
      value: `${fmt(bare.median)} ns`,
      range: `${fmt(bare.min)}–${fmt(bare.max)}`,
      rss: `${fmt(peakRssMb)} MiB`,
    },
    {
      group: GROUP,
      what: 'the same with one empty handler per event (the hook dispatch any hook module costs)',
      value: `${fmt(empty.median)} ns`,
      range: `${fmt(empty.min)}–${fmt(empty.max)}`,
      ratio: `${fmt(empty.median / bare.median)}×`,
    },
    {
      group: GROUP,
      what: 'the same with hooks-otel and no SDK registered (the API no-op tracer)',
      value: `${fmt(noSdk.median)} ns`,
      range: `${fmt(noSdk.min)}–${fmt(noSdk.max)}`,
      ratio: `${fmt(noSdk.median / bare.median)}×`,
    },
    {
      group: GROUP,
      what: 'the same with hooks-otel and the OTel SDK (batch processor, no-op exporter)',
      value: `${fmt(sdk.median)} ns`,
      range: `${fmt(sdk.min)}–${fmt(sdk.max)}`,
      ratio: `${fmt(sdk.median / bare.median)}×`,
    },
    {
      group: GROUP,
      what: "the SDK alone: the tool call's span (same name, kind, 5 attributes, explicit parent) started and ended directly, no hooks",
      value: `${fmt(raw.median)} ns`,
      range: `${fmt(raw.min)}–${fmt(raw.max)}`,
    },
    {
      group: GROUP,
      what: "hooks-otel's span overhead per tool call: SDK row − empty-handler row − the SDK's own span (median of per-round differences)",
      value: `${us(own.median)} µs`,
      range: `${us(own.min)}–${us(own.max)}`,
      target: '≤ 3 µs',
      meets: meets(own.median / 1000, 3, 'le'),
      note: `${fmt(value.exported)} spans reached the exporter; see modules/hooks-otel/README.md (Performance) for what is counted`,
    },
    {
      group: GROUP,
      what: 'the whole cost of tracing a tool call: SDK row − no-handler row (hook dispatch + the SDK span + hooks-otel)',
      value: `${us(whole.median)} µs`,
      range: `${us(whole.min)}–${us(whole.max)}`,
      ratio: `${fmt(whole.median / raw.median)}× the SDK's own span`,
    },
  ];
}

export const group: Group = { name: GROUP, title: 'hooks-otel span overhead', run };
