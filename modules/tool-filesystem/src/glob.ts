/**
 * `glob`: files and directories matching a pattern under a base directory,
 * newest first. tinyglobby does the walking; symlinks are neither listed nor
 * followed, so every result is physically inside the (checked) base.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Tool, ToolCallOptions, ToolResult } from '@amplifier/core';
import type { ToolContext } from './config.js';
import { loadGlob, loadPicomatch, type Picomatch } from './glob-libs.js';
import { checkPathString, type ResolvedPath } from './sandbox.js';
import { fail, ok, sandboxFailure } from './tool-result.js';

const DESCRIPTION = `Find files and directories by glob pattern, newest first.
- pattern: a glob relative to path, e.g. "**/*.ts", "src/**/test_*.py", "*.{json,yaml}".
- path: the directory to search (default: the working directory).
- type: "file", "dir" or "any" (default "any").
- exclude: extra glob patterns to leave out; include_ignored: also search node_modules, .git, dist, build, .venv and the like (skipped by default).
- Symbolic links are not listed or followed. Results are capped; results_capped tells you to narrow the search.`;

/** A `..` path segment anywhere in a pattern, also inside braces: `{..,x}`. */
const PARENT_SEGMENT = /(^|[/{,])\.\.($|[/},])/;

/**
 * A `readdir` for tinyglobby that hides excluded directories (by name, as a
 * path component; a file of that name is kept) and denied paths, so neither
 * is ever entered.
 */
function prunedReaddir(
  excluded: ReadonlySet<string>,
  denied: ReadonlySet<string>,
  base: string,
): typeof fs.readdir {
  const readdir = (
    dir: string,
    options: { withFileTypes: true },
    callback: (error: NodeJS.ErrnoException | null, entries: fs.Dirent[]) => void,
  ): void => {
    fs.readdir(dir, options, (error, entries) => {
      if (error) return callback(error, entries);
      const full = path.resolve(base, dir);
      callback(
        null,
        entries.filter(
          (e) =>
            !(e.isDirectory() && excluded.has(e.name)) &&
            (denied.size === 0 || !denied.has(path.join(full, e.name))),
        ),
      );
    });
  };
  return readdir as unknown as typeof fs.readdir;
}

/**
 * A matcher for the user's `exclude` list: a pattern without a slash matches
 * a file name anywhere, one with a slash matches the path relative to the base.
 */
function excludeMatcher(picomatch: Picomatch, patterns: string[]): ((rel: string) => boolean) | undefined {
  if (patterns.length === 0) return undefined;
  const names = patterns.filter((p) => !p.includes('/'));
  const paths = patterns.filter((p) => p.includes('/'));
  const byName = names.length > 0 ? picomatch(names, { dot: true }) : () => false;
  const byPath = paths.length > 0 ? picomatch(paths, { dot: true }) : () => false;
  return (rel) => byName(path.basename(rel)) || byPath(rel);
}

interface Match {
  path: string;
  type: 'file' | 'dir';
  size: number | null;
  mtimeMs: number;
}

async function runGlob(
  ctx: ToolContext,
  input: Record<string, unknown>,
  options?: ToolCallOptions,
): Promise<ToolResult> {
  if (typeof input.pattern !== 'string' || input.pattern === '') return fail('Pattern is required');
  let pattern: string = input.pattern;
  const baseArg = input.path ?? '.';
  if (typeof baseArg !== 'string' || baseArg === '') return fail('path must be a non-empty string');
  let base: string = baseArg;
  const type = input.type ?? 'any';
  if (type !== 'file' && type !== 'dir' && type !== 'any')
    return fail('type must be one of "file", "dir", "any"');
  const exclude = input.exclude ?? [];
  if (!Array.isArray(exclude) || exclude.some((e) => typeof e !== 'string')) {
    return fail('exclude must be a list of glob patterns');
  }
  const bad = checkPathString(pattern, 'pattern');
  if (bad !== undefined) return fail(bad, { type: 'InvalidPath' });
  const [picomatch, glob] = await Promise.all([loadPicomatch(), loadGlob()]);
  // An absolute pattern ("/etc/*.conf") is a base directory plus a pattern.
  if ((pattern.startsWith('/') || pattern.startsWith('~/')) && input.path === undefined) {
    const scan = picomatch.scan(pattern);
    if (scan.base !== '' && scan.glob !== '') {
      base = scan.base;
      pattern = scan.glob;
    }
  }
  if (pattern.startsWith('/') || PARENT_SEGMENT.test(pattern)) {
    return fail(
      `Glob pattern must be relative to path and must not contain '..': ${pattern}. Set path to the directory to search and pattern to what to match under it.`,
    );
  }

  let resolved: ResolvedPath;
  try {
    resolved = await ctx.sandbox.resolve(base, 'read', 'path');
  } catch (error) {
    return sandboxFailure(error) ?? fail(`Glob search failed: ${(error as Error).message}`);
  }
  if (resolved.stat === undefined) return fail(`Path not found: ${base}`, { type: 'FileNotFoundError' });
  if (!resolved.stat.isDirectory()) return fail(`Not a directory: ${base}; path must be a directory`);

  const { max_results: maxResults, exclusions, timeout } = ctx.config.glob;
  const deadline = AbortSignal.timeout(timeout * 1000);
  const signal = options?.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const excluded = new Set(input.include_ignored === true ? [] : exclusions);
  const denied = new Set(ctx.sandbox.deniedBelow(resolved.real));
  let found: string[];
  try {
    found = await glob(pattern, {
      cwd: resolved.real,
      dot: true,
      followSymbolicLinks: false,
      expandDirectories: false,
      onlyFiles: type === 'file',
      onlyDirectories: type === 'dir',
      fs: { readdir: prunedReaddir(excluded, denied, resolved.real) },
      signal,
    });
  } catch (error) {
    if (!signal.aborted) return fail(`Glob search failed: ${(error as Error).message}`);
    found = [];
  }
  const userExclude = excludeMatcher(picomatch, exclude as string[]);

  const matches: Match[] = [];
  for (let i = 0; i < found.length && !signal.aborted; i += 64) {
    const batch = found.slice(i, i + 64).map(async (rel): Promise<Match | undefined> => {
      const clean = rel.endsWith('/') ? rel.slice(0, -1) : rel;
      if (clean === '' || clean === '.' || userExclude?.(clean)) return undefined;
      const real = path.join(resolved.real, clean);
      if (ctx.sandbox.isDenied(real)) return undefined;
      const stat = await fsp.lstat(real).catch(() => undefined);
      if (stat === undefined || (!stat.isFile() && !stat.isDirectory())) return undefined;
      const isDir = stat.isDirectory();
      return {
        path: path.join(resolved.display, clean),
        type: isDir ? 'dir' : 'file',
        size: isDir ? null : stat.size,
        mtimeMs: stat.mtimeMs,
      };
    });
    for (const match of await Promise.all(batch)) if (match) matches.push(match);
  }
  if (signal.aborted) {
    if (options?.signal?.aborted) return fail('Glob search cancelled', { type: 'Cancelled' });
    return fail(`Glob search timed out after ${timeout} s. Narrow the pattern or the path.`, {
      type: 'Timeout',
    });
  }

  matches.sort((a, b) => b.mtimeMs - a.mtimeMs || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const kept = matches.slice(0, maxResults);
  const output: Record<string, unknown> = {
    pattern,
    base_path: resolved.display,
    total_files: matches.length,
    count: kept.length,
    matches: kept.map(({ path: p, type: t, size }) => ({ path: p, type: t, size })),
  };
  if (matches.length > maxResults) output.results_capped = true;
  return ok(output);
}

/** The `glob` tool. */
export function globTool(ctx: ToolContext): Tool {
  return {
    name: 'glob',
    description: DESCRIPTION,
    inputSchema: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'Glob pattern, e.g. "**/*.py"' },
        path: { type: 'string', description: 'Base directory to search (default: the working directory)' },
        type: { type: 'string', enum: ['file', 'dir', 'any'], description: 'What to match (default: any)' },
        exclude: { type: 'array', items: { type: 'string' }, description: 'Glob patterns to leave out' },
        include_ignored: {
          type: 'boolean',
          description: 'Also search node_modules, .git, dist, build, .venv and other excluded directories',
        },
      },
      required: ['pattern'],
    },
    executionProfile: {
      resourceKeys: (input) => [
        {
          key: `file:${ctx.sandbox.resourcePath(typeof input.path === 'string' && input.path !== '' ? input.path : '.')}`,
          mode: 'read',
        },
      ],
    },
    execute: (input, options) => runGlob(ctx, input, options),
  };
}
