/**
 * Statistics and process helpers shared by the benchmark groups: median, min
 * and max of samples; number formatting; a child-process runner that reports
 * the child's wall time, peak RSS (`process.resourceUsage().maxRSS`) and
 * result; and the row type every group returns for the table.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/** Median, min and max of a sample. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** The median (mean of the two middle values for an even count). Throws on an empty sample. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('median of an empty sample');
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median, min and max of `xs`. */
export function summarize(xs: readonly number[]): Summary {
  if (xs.length === 0) throw new Error('summary of an empty sample');
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const x of xs) {
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return { median: median(xs), min, max, n: xs.length };
}

/** A number with about three significant digits, thousands separated (`12,345`, `123`, `12.3`, `1.23`, `0.012`). */
export function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 1000) return Math.round(x).toLocaleString('en-US');
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  if (a === 0) return '0';
  return x.toPrecision(2);
}

/** `median` formatted, and `min–max`. */
export function fmtSummary(s: Summary, unit = ''): { value: string; range: string } {
  return { value: `${fmt(s.median)}${unit}`, range: `${fmt(s.min)}–${fmt(s.max)}` };
}

/** Milliseconds an async function takes. */
export async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Run the garbage collector if the process was started with --expose-gc. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Peak resident set size of this process so far, in MiB. */
export function peakRssMb(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** One line of the results table. */
export interface Row {
  /** The group (`--only` name). */
  group: string;
  what: string;
  /** The median (formatted, with its unit). */
  value: string;
  /** `min–max` of the samples, when there are several. */
  range?: string;
  /** Ratio to the reference of the group (the plain loop, GNU grep, execFile...). */
  ratio?: string;
  /** Peak RSS of the process that did the work, formatted. */
  rss?: string;
  target?: string;
  /** Whether the target is met; undefined when there is no target. */
  meets?: boolean;
  note?: string;
}

/** A row whose value is the median of `samples` and whose range is their min–max. */
export function sampleRow(
  group: string,
  what: string,
  samples: readonly number[],
  unit: string,
  extra: Partial<Row> = {},
): Row {
  const s = summarize(samples);
  return { group, what, value: `${fmt(s.median)} ${unit}`, range: `${fmt(s.min)}–${fmt(s.max)}`, ...extra };
}

/** `'yes'`/`'no'` for a value checked against an upper (`le`) or lower (`ge`) bound. */
export function meets(value: number, bound: number, kind: 'le' | 'ge' = 'le'): boolean {
  return kind === 'le' ? value <= bound : value >= bound;
}

/** What a child process reported. */
export interface ChildReport<T> {
  value: T;
  /** Peak RSS of the child (MiB), from its own `process.resourceUsage().maxRSS`. */
  peakRssMb: number;
  /** From spawn to exit, as seen by the parent. */
  wallMs: number;
  /** From spawn to the child's `ready()` line, when it printed one. */
  readyMs?: number;
}

const RESULT = '@@result ';
const READY = '@@ready';
const distDir = path.dirname(fileURLToPath(import.meta.url));

/**
 * Run `dist/<entry>` in a fresh `node` (with --expose-gc) and return what its
 * `reportResult` printed. The child's stderr goes to ours; a non-zero exit
 * or a missing result rejects with its output.
 */
export function runChild<T>(
  entry: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; nodeArgs?: readonly string[]; cwd?: string } = {},
): Promise<ChildReport<T>> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    let readyMs: number | undefined;
    const child = spawn(
      process.execPath,
      ['--expose-gc', ...(options.nodeArgs ?? []), path.join(distDir, entry), ...args],
      { stdio: ['ignore', 'pipe', 'inherit'], env: options.env ?? process.env, cwd: options.cwd },
    );
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (readyMs === undefined && (out + chunk).includes(READY)) readyMs = performance.now() - start;
      out += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const wallMs = performance.now() - start;
      const line = out.split('\n').find((l) => l.startsWith(RESULT));
      if (code !== 0 || line === undefined) {
        reject(new Error(`${entry} ${args.join(' ')} failed (exit ${code ?? signal}):\n${out.slice(-2000)}`));
        return;
      }
      const parsed = JSON.parse(line.slice(RESULT.length)) as { value: T; peakRssMb: number };
      resolve({ ...parsed, wallMs, ...(readyMs !== undefined && { readyMs }) });
    });
  });
}

/** In a child: tell the parent the measured moment has come (it stops its clock for `readyMs`). */
export function ready(): void {
  process.stdout.write(`${READY}\n`);
}

/** In a child: print the result line with this process's peak RSS. */
export function reportResult(value: unknown): void {
  process.stdout.write(`${RESULT}${JSON.stringify({ value, peakRssMb: peakRssMb() })}\n`);
}

/** Another build of context-simple to measure next to this one (`--also <label>=<path>`). */
export interface Build {
  label: string;
  /** Its `dist/index.js`. */
  path: string;
}

/** Options every group gets from the runner. */
export interface GroupOptions {
  /** Samples per measurement (at least 5 for the headline). */
  runs: number;
  /** Smaller sizes for a quick look (not for RESULTS.md). */
  quick: boolean;
  /** Other builds of context-simple, measured by the context group next to this one. */
  also: readonly Build[];
  /** Progress on stderr. */
  log(message: string): void;
}

/** One benchmark group: a file under src/ that can run alone (`pnpm bench -- --only <name>`). */
export interface Group {
  name: string;
  title: string;
  run(options: GroupOptions): Promise<Row[]>;
}

/** The reason `specifier` cannot be imported (not written or not built yet), or undefined when it can. */
export async function missing(specifier: string): Promise<string | undefined> {
  try {
    await import(specifier);
    return undefined;
  } catch (error) {
    return `${specifier} is not available (${(error as Error).message.split('\n')[0]})`;
  }
}

/** The row a group returns when its module is missing. */
export function notAvailable(group: string, what: string, reason: string): Row {
  return { group, what, value: 'not available', note: reason };
}
