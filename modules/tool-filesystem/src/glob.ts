/**
 * `glob`: files and directories matching a pattern under a base directory,
 * newest first. tinyglobby does the walking; symlinks are neither listed nor
 * followed, so every result is physically inside the (checked) base.
 */
import type fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ToolCallOptions, ToolResult } from '@amplifier/core';
import type { ToolContext } from './config.js';
import { type Glob, loadGlob, loadPicomatch, type Picomatch } from './glob-libs.js';
import { type DirRef, HeldTree, openChildDir } from './path-walk.js';
import { checkPathString, type ResolvedPath } from './sandbox.js';
import { fail, ok, sandboxFailure } from './tool-result.js';

/** A `..` path segment anywhere in a pattern, also inside braces: `{..,x}`. */
const PARENT_SEGMENT = /(^|[/{,])\.\.($|[/},])/;

/**
 * A `readdir` for tinyglobby that lists each directory through a descriptor
 * opened below the held base, component by component with `O_NOFOLLOW` (a
 * directory swapped for a symlink is not listed, wherever it points), and
 * hides excluded directories (by name, as a path component; a file of that
 * name is kept) and denied paths, so neither is ever entered.
 */
function prunedReaddir(
  excluded: ReadonlySet<string>,
  denied: ReadonlySet<string>,
  base: HeldTree,
  baseReal: string,
): typeof fs.readdir {
  const readdir = (
    dir: string,
    options: { withFileTypes: true },
    callback: (error: NodeJS.ErrnoException | null, entries: fs.Dirent[]) => void,
  ): void => {
    const full = path.resolve(baseReal, dir);
    const list = async (): Promise<fs.Dirent[]> => {
      const entries = await base.use(path.relative(baseReal, full), (held) =>
        fsp.readdir(held.path, options),
      );
      if (entries === undefined) {
        throw Object.assign(new Error(`not a directory: ${full}`), { code: 'ENOTDIR' });
      }
      return entries;
    };
    list().then(
      (entries) =>
        callback(
          null,
          entries.filter(
            (e) =>
              !(e.isDirectory() && excluded.has(e.name)) &&
              (denied.size === 0 || !denied.has(path.join(full, e.name))),
          ),
        ),
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
  return readdir as unknown as typeof fs.readdir;
}

/**
 * `lstat` of each of `rels` (relative to `base`), through its held parent
 * directory (one open per directory, a few directories at a time); undefined
 * when gone or when a parent is no longer a directory below `base`.
 */
async function statBeneath(
  base: HeldTree,
  rels: readonly string[],
  signal: AbortSignal,
): Promise<(fs.Stats | undefined)[]> {
  const byDir = new Map<string, number[]>();
  rels.forEach((rel, i) => {
    const dir = path.posix.dirname(rel);
    const list = byDir.get(dir);
    if (list === undefined) byDir.set(dir, [i]);
    else list.push(i);
  });
  const stats: (fs.Stats | undefined)[] = new Array(rels.length).fill(undefined);
  const groups = [...byDir];
  const statGroup = async ([dir, indexes]: [string, number[]]): Promise<void> => {
    await base.use(dir, (held) =>
      Promise.all(
        indexes.map(async (i) => {
          stats[i] = await fsp.lstat(held.child(path.posix.basename(rels[i]!))).catch(() => undefined);
        }),
      ),
    );
  };
  const lanes = Array.from({ length: Math.min(8, groups.length) }, async () => {
    for (let group = groups.shift(); group !== undefined && !signal.aborted; group = groups.shift()) {
      await statGroup(group);
    }
  });
  await Promise.all(lanes);
  return stats;
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

export async function runGlob(
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

  let baseDir: DirRef | undefined;
  try {
    const walked = await ctx.sandbox.locate(resolved, ['read'], base);
    try {
      baseDir = await openChildDir(walked.dir, walked.name, walked.stat);
    } finally {
      await walked.dir.close();
    }
  } catch (error) {
    return sandboxFailure(error) ?? fail(`Glob search failed: ${(error as Error).message}`);
  }
  if (baseDir === undefined) {
    return fail(`Cannot search ${base}: it changed while being opened`, { type: 'PathChanged' });
  }
  const tree = new HeldTree(baseDir);
  try {
    return await globIn(
      ctx,
      tree,
      baseDir,
      resolved,
      pattern,
      type,
      exclude as string[],
      input,
      glob,
      picomatch,
      options,
    );
  } finally {
    await tree.close();
    await baseDir.close();
  }
}

/** The walk and the matches, below the held base directory. */
async function globIn(
  ctx: ToolContext,
  tree: HeldTree,
  baseDir: DirRef,
  resolved: ResolvedPath,
  pattern: string,
  type: 'file' | 'dir' | 'any',
  exclude: string[],
  input: Record<string, unknown>,
  glob: Glob,
  picomatch: Picomatch,
  options?: ToolCallOptions,
): Promise<ToolResult> {
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
      fs: { readdir: prunedReaddir(excluded, denied, tree, baseDir.real) },
      signal,
    });
  } catch (error) {
    if (!signal.aborted) return fail(`Glob search failed: ${(error as Error).message}`);
    found = [];
  }
  const userExclude = excludeMatcher(picomatch, exclude);

  const wanted = found
    .map((rel) => (rel.endsWith('/') ? rel.slice(0, -1) : rel))
    .filter(
      (clean) =>
        clean !== '' &&
        clean !== '.' &&
        !userExclude?.(clean) &&
        !ctx.sandbox.isDenied(path.join(resolved.real, clean)),
    );
  const stats = signal.aborted ? [] : await statBeneath(tree, wanted, signal);
  const matches: Match[] = [];
  wanted.forEach((clean, k) => {
    const stat = stats[k];
    if (stat === undefined || (!stat.isFile() && !stat.isDirectory())) return;
    const isDir = stat.isDirectory();
    matches.push({
      path: path.join(resolved.display, clean),
      type: isDir ? 'dir' : 'file',
      size: isDir ? null : stat.size,
      mtimeMs: stat.mtimeMs,
    });
  });
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
