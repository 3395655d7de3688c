/**
 * hooks-logging: events per second written (emits awaited back to back, then
 * the cleanup that writes everything accepted; every record is counted back
 * from the file), and the latency it adds to each `emit` compared with the
 * same coordinator without the logger. The in-session cost shows in the
 * headline rows "Amplifier + hooks-logging". And the redactor alone on a
 * fixed corpus (ns per string): text with no secret (what most of a log is)
 * and text where every string holds three (the secret-value rules run).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

const GROUP = 'logging';

interface Sample {
  /** ns per emit without / with the logger. */
  bare: number[];
  logged: number[];
  /** Events per second from the first emit to the end of the final flush. */
  rate: number[];
  written: number;
  emitted: number;
}

function countLines(dir: string): number {
  let lines = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue;
    const text = readFileSync(path.join(entry.parentPath, entry.name), 'utf8');
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  }
  return lines;
}

/** Child task: `runs` interleaved samples of `events` emits each, with and without the logger. */
async function logRate(args: { runs: number; events: number }): Promise<Sample> {
  const { Coordinator, silentLogger } = await import('@amplifier/core');
  const logging = await import('@amplifier/hooks-logging');
  const data = {
    tool_name: 'read_file',
    tool_call_id: 'call_1',
    tool_input: { file_path: 'src/index.ts' },
    result: { success: true, output: { content: '     1\texport const answer = 42;\n', lines_read: 1 } },
  };
  const coordinator = (sessionId: string) => {
    const c = new Coordinator({ sessionId, logger: silentLogger });
    c.hooks.setDefaultFields({ session_id: sessionId, parent_id: null });
    return c;
  };
  const emitAll = async (c: InstanceType<typeof Coordinator>, n: number): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < n; i++) await c.hooks.emit('tool:post', data);
    return performance.now() - start;
  };
  const out: Sample = { bare: [], logged: [], rate: [], written: 0, emitted: 0 };
  for (let round = -1; round < args.runs; round++) {
    const bare = coordinator(`bare-${round}`);
    collectGarbage();
    const bareMs = await emitAll(bare, args.events);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'amp-bench-logging-'));
    try {
      const c = coordinator(`logged-${round}`);
      const cleanup = await logging.mount(c, {
        session_log_template: path.join(dir, '{session_id}', 'events.jsonl'),
      });
      collectGarbage();
      const start = performance.now();
      const loggedMs = await emitAll(c, args.events);
      await cleanup();
      const totalMs = performance.now() - start;
      if (round < 0) continue; // warm-up
      out.bare.push((bareMs * 1e6) / args.events);
      out.logged.push((loggedMs * 1e6) / args.events);
      out.rate.push(args.events / (totalMs / 1000));
      out.written += countLines(dir);
      out.emitted += args.events;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

/** A fixed corpus of strings as tools print them: prose, code, listings, ids (2% with a secret); and one where each string holds three. */
function redactCorpus(): { typical: string[]; dense: string[] } {
  let state = 7;
  const body = (n: number): string => {
    let out = '';
    for (let i = 0; i < n; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      out += 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789'[(state >>> 8) % 57];
    }
    return out;
  };
  // Tokens are built here, never written whole in the source.
  const stripe = () => ['sk', '_live_', body(32)].join('');
  const prose =
    'The function reads the config file, validates each entry against the schema and returns the result. ';
  const code =
    'export function merge(a, b) {\n  for (const key of Object.keys(b)) a[key] = b[key];\n  return a;\n}\n';
  const typical: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const k = i % 50;
    if (k === 0) typical.push(`token ${stripe()} in output`);
    else if (k < 20) typical.push(`call_${i}_${body(8)}`);
    else if (k < 35) typical.push(`${prose}${i} ${code}`.repeat(2));
    else if (k < 45) typical.push(`$ ls -la\n${'drwxr-xr-x 2 user user 4096 Dec  7 11:30 src\n'.repeat(20)}`);
    else typical.push(`${code.repeat(60)}// line ${i}\n`);
  }
  const dense = Array.from(
    { length: 400 },
    (_, i) =>
      `${i}: ${stripe()} and ${['npm', '_', body(36)].join('')} then ${['AI', 'za', body(35)].join('')}`,
  );
  return { typical, dense };
}

/** Child task: ns per string through `Redactor.redactString`, `runs` passes over each corpus after a warm-up. */
async function redactRate(args: { runs: number }): Promise<{ typical: number[]; dense: number[] }> {
  const { DEFAULT_REDACTION, Redactor } = await import('@amplifier/secrets');
  const redactor = new Redactor({ ...DEFAULT_REDACTION, env_values: false }, {});
  const { typical, dense } = redactCorpus();
  const pass = (strings: readonly string[]): number => {
    const start = performance.now();
    for (const text of strings) redactor.redactString(text, new Set());
    return ((performance.now() - start) * 1e6) / strings.length;
  };
  const out = { typical: [] as number[], dense: [] as number[] };
  for (let round = -3; round < args.runs; round++) {
    const t = pass(typical);
    const d = pass(dense);
    if (round < 0) continue;
    out.typical.push(t);
    out.dense.push(d);
  }
  return out;
}

export const tasks = { logRate, redactRate };

async function run(options: GroupOptions): Promise<Row[]> {
  const reason = await missing('@amplifier/hooks-logging');
  if (reason !== undefined) return [notAvailable(GROUP, 'hooks-logging', reason)];
  const events = options.quick ? 20_000 : 100_000;
  options.log(`logging: ${events} events per sample`);
  const { value, peakRssMb } = await runChild<Sample>('child.js', [
    GROUP,
    'logRate',
    JSON.stringify({ runs: Math.max(5, options.runs), events }),
  ]);
  const redact = await runChild<{ typical: number[]; dense: number[] }>('child.js', [
    GROUP,
    'redactRate',
    JSON.stringify({ runs: Math.max(9, options.runs) }),
  ]);
  const typical = summarize(redact.value.typical);
  const dense = summarize(redact.value.dense);
  const rate = summarize(value.rate);
  const bare = summarize(value.bare);
  const logged = summarize(value.logged);
  const added = logged.median - bare.median;
  return [
    {
      group: GROUP,
      what: `hooks-logging: events written per second (${fmt(events)} \`tool:post\` emits back to back, until the cleanup has written them all)`,
      value: `${fmt(rate.median)} /s`,
      range: `${fmt(rate.min)}–${fmt(rate.max)}`,
      rss: `${fmt(peakRssMb)} MiB`,
      target: '≥ 100,000 /s',
      meets: meets(rate.median, 100_000, 'ge'),
      note: `${fmt(value.written)} of ${fmt(value.emitted)} emitted records found in the log files afterwards`,
    },
    {
      group: GROUP,
      what: '`emit` without the logger (same coordinator, same payload)',
      value: `${fmt(bare.median)} ns`,
      range: `${fmt(bare.min)}–${fmt(bare.max)}`,
    },
    {
      group: GROUP,
      what: '`emit` with hooks-logging mounted',
      value: `${fmt(logged.median)} ns`,
      range: `${fmt(logged.min)}–${fmt(logged.max)}`,
      ratio: `${fmt(logged.median / bare.median)}×`,
    },
    {
      group: GROUP,
      what: "latency hooks-logging adds to each emit, 100,000 back to back (the event is copied and queued; with the queue full, an emit waits for the writer's batch, which builds, redacts and writes the records)",
      value: `${fmt(added / 1000)} µs`,
      target: 'loop never waits on disk',
    },
    {
      group: GROUP,
      what: 'the redactor alone (`Redactor.redactString`), per string of a fixed corpus of tool output (2,000 strings of 30 B to 5 KB: prose, code, listings, ids; 2% with a secret)',
      value: `${fmt(typical.median)} ns`,
      range: `${fmt(typical.min)}–${fmt(typical.max)}`,
    },
    {
      group: GROUP,
      what: 'the redactor alone, per string holding three secrets (Stripe, npm, Google keys; the secret-value rules of `@amplifier/secrets` run)',
      value: `${fmt(dense.median)} ns`,
      range: `${fmt(dense.min)}–${fmt(dense.max)}`,
    },
  ];
}

export const group: Group = { name: GROUP, title: 'hooks-logging throughput', run };
