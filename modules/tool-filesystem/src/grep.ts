/**
 * `grep`: search file contents with a JavaScript regex, in pure Node (no
 * ripgrep needed). Input checks, the regex and the filters are prepared here;
 * the walk and the matching run in a worker thread that is terminated on the
 * time limit or on cancellation (see grep-pool.ts).
 */
import type { FileHandle } from 'node:fs/promises';
import type { ToolCallOptions, ToolResult } from '@amplifier/core';
import type { ToolContext } from './config.js';
import { typeGlobs } from './file-types.js';
import { loadPicomatch } from './glob-libs.js';
import type { GrepWorkers } from './grep-pool.js';
import type { GrepJob, GrepMode, RegexSpec } from './grep-worker.js';
import { hasProcFd, openChildDir } from './path-walk.js';
import { describeType, openRegularFile, type ResolvedPath } from './sandbox.js';
import { GREP_MODES, MAX_LINE_CHARS } from './tool-definitions.js';
import { fail, ok, sandboxFailure } from './tool-result.js';

/** The regex grep runs (flags without `g`), or an error message. */
export function compileRegex(pattern: string, ignoreCase: boolean, multiline: boolean): RegexSpec | string {
  let source = pattern;
  const flags = new Set(['m']);
  const inline = /^\(\?([imsx]+)\)/.exec(source);
  if (inline !== null && !inline[1]!.includes('x')) {
    for (const f of inline[1]!) flags.add(f);
    source = source.slice(inline[0].length);
  }
  if (ignoreCase) flags.add('i');
  if (multiline) flags.add('s');
  if (/\\[pPu]\{/.test(source)) flags.add('u');
  const spec = { source, flags: [...flags].join('') };
  try {
    new RegExp(spec.source, spec.flags);
  } catch (error) {
    return `Invalid regex pattern: ${(error as Error).message}`;
  }
  return spec;
}

const LITERAL = /^(?:[^\\^$.|?*+()[\]{}\n\r]|\\[^\w\s])+$/;

/** The text every match of a plain-literal, case-sensitive pattern is made of, else null. */
export function requiredLiteral(regex: RegexSpec): string | null {
  if (regex.flags.includes('i') || !LITERAL.test(regex.source)) return null;
  return regex.source.replace(/\\(.)/g, '$1');
}

function toSpec(re: RegExp): RegexSpec {
  return { source: re.source, flags: re.flags };
}

function nonNegativeInt(input: Record<string, unknown>, key: string): number | string | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    return `${key} must be a non-negative integer`;
  return value;
}

export async function runGrep(
  ctx: ToolContext,
  workers: () => Promise<GrepWorkers>,
  input: Record<string, unknown>,
  options?: ToolCallOptions,
): Promise<ToolResult> {
  const pattern = input.pattern;
  if (typeof pattern !== 'string' || pattern === '') return fail('Pattern is required');
  const base = input.path ?? '.';
  if (typeof base !== 'string' || base === '') return fail('path must be a non-empty string');
  const mode = (input.output_mode ?? 'files_with_matches') as GrepMode;
  if (!GREP_MODES.includes(mode)) return fail(`output_mode must be one of ${GREP_MODES.join(', ')}`);
  const numbers: Record<string, number | undefined> = {};
  for (const key of ['-A', '-B', '-C', 'head_limit', 'offset']) {
    const value = nonNegativeInt(input, key);
    if (typeof value === 'string') return fail(value);
    numbers[key] = value;
  }
  const multiline = input.multiline === true;
  const regex = compileRegex(pattern, input['-i'] === true, multiline);
  if (typeof regex === 'string') return fail(regex, { type: 'InvalidRegex' });

  let types: RegexSpec[] | null = null;
  if (input.type !== undefined && input.type !== null) {
    if (typeof input.type !== 'string') return fail('type must be a string');
    const globs = typeGlobs(input.type);
    if (typeof globs === 'string') return fail(globs);
    const picomatch = await loadPicomatch();
    types = globs.map((g) => toSpec(picomatch.makeRe(g, { dot: true })));
  }
  let include: GrepJob['include'] = null;
  if (input.glob !== undefined && input.glob !== null && input.glob !== '') {
    if (typeof input.glob !== 'string') return fail('glob must be a string');
    const basename = !input.glob.replace(/^!/, '').includes('/');
    const picomatch = await loadPicomatch();
    try {
      include = { ...toSpec(picomatch.makeRe(input.glob, { dot: true })), basename };
    } catch (error) {
      return fail(`Invalid glob: ${input.glob}: ${(error as Error).message}`);
    }
  }

  let resolved: ResolvedPath;
  try {
    resolved = await ctx.sandbox.resolve(base, 'read', 'path');
  } catch (error) {
    return sandboxFailure(error) ?? fail(`Search failed: ${(error as Error).message}`);
  }
  const { stat } = resolved;
  if (stat === undefined) return fail(`Path not found: ${base}`, { type: 'FileNotFoundError' });
  if (!stat.isDirectory() && !stat.isFile()) {
    return fail(`Cannot search ${base}: it is ${describeType(stat)}`, { type: 'NotARegularFile' });
  }

  // The base is opened race-free here and held while the workers search below it.
  let baseHandle: FileHandle;
  try {
    const walked = await ctx.sandbox.locate(resolved, ['read'], base);
    try {
      if (stat.isFile()) baseHandle = (await openRegularFile(walked, base)).handle;
      else {
        const dir = await openChildDir(walked.dir, walked.name, walked.stat);
        if (dir === undefined) {
          return fail(`Cannot search ${base}: it changed while being opened`, { type: 'PathChanged' });
        }
        baseHandle = dir.handle;
      }
    } finally {
      await walked.dir.close();
    }
  } catch (error) {
    return sandboxFailure(error) ?? fail(`Search failed: ${(error as Error).message}`);
  }
  try {
    return await search(
      ctx,
      workers,
      { pattern, mode, numbers, multiline, regex, types, include, input },
      resolved,
      baseHandle,
      options,
    );
  } finally {
    await baseHandle.close().catch(() => undefined);
  }
}

/** What runGrep checked and prepared from the input. */
interface Prepared {
  pattern: string;
  mode: GrepMode;
  numbers: Record<string, number | undefined>;
  multiline: boolean;
  regex: RegexSpec;
  types: RegexSpec[] | null;
  include: GrepJob['include'];
  input: Record<string, unknown>;
}

/** Run the search below the held base and shape the output. */
async function search(
  ctx: ToolContext,
  workers: () => Promise<GrepWorkers>,
  { pattern, mode, numbers, multiline, regex, types, include, input }: Prepared,
  resolved: ResolvedPath,
  baseHandle: FileHandle,
  options?: ToolCallOptions,
): Promise<ToolResult> {
  const stat = resolved.stat!;
  const config = ctx.config.grep;
  const headLimit = numbers.head_limit ?? config.default_limits[mode];
  const limit = headLimit === 0 ? Number.MAX_SAFE_INTEGER : headLimit;
  const offset = numbers.offset ?? 0;
  const job: GrepJob = {
    base: resolved.real,
    baseFd: baseHandle.fd,
    procFd: hasProcFd(),
    baseIsFile: stat.isFile(),
    displayBase: resolved.display,
    regex,
    literal: requiredLiteral(regex),
    mode,
    multiline,
    lineNumbers: input['-n'] !== false,
    before: mode === 'content' ? (numbers['-B'] ?? numbers['-C'] ?? 0) : 0,
    after: mode === 'content' ? (numbers['-A'] ?? numbers['-C'] ?? 0) : 0,
    offset,
    limit,
    include,
    types,
    excluded: input.include_ignored === true ? [] : config.exclusions,
    denied: stat.isDirectory() ? ctx.sandbox.deniedBelow(resolved.real) : [],
    maxFileSize: config.max_file_size,
    maxLineChars: MAX_LINE_CHARS,
  };

  const outcome = await (await workers()).run(job, options?.signal, config.timeout * 1000);
  if ('timeout' in outcome) {
    return fail('Search timed out. Try narrowing your search or using more specific patterns.', {
      type: 'Timeout',
    });
  }
  if ('cancelled' in outcome) return fail('Search cancelled', { type: 'Cancelled' });
  if ('error' in outcome) return fail(`Search failed: ${outcome.error}`);
  const found = outcome.ok;

  const output: Record<string, unknown> = { pattern, output_mode: mode, total_matches: found.totalMatches };
  if (mode === 'content') {
    output.matches_count = found.results.length;
    output.results = found.results;
  } else if (mode === 'files_with_matches') {
    output.matches_count = found.files.length;
    output.files = found.files;
  } else {
    output.matches_count = found.counts.reduce((sum, [, n]) => sum + n, 0);
    output.counts = Object.fromEntries(found.counts);
  }
  if (found.totalItems - offset > limit) output.results_capped = true;
  output.files_searched = found.filesSearched;
  const { binary, too_large, unreadable } = found.skipped;
  if (binary + too_large + unreadable > 0) output.files_skipped = { binary, too_large, unreadable };
  return ok(output);
}
