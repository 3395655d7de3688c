/**
 * Finding modules: the loader the CLI uses (the project at --cwd plus the
 * CLI's own bundled modules), `amplifier modules list` and
 * `amplifier module validate`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AmplifierError,
  type Coordinator,
  type Logger,
  MODULE_TYPES,
  type ModuleInfo,
  ModuleLoader,
  type ModuleType,
} from '@amplifier/core';
import { terminalSafe } from '@amplifier/process/terminal';
import type { Display } from './display.js';
import { CliError, EXIT_ERROR, EXIT_OK, EXIT_USAGE } from './errors.js';

/**
 * The CLI package's own directory (holding its package.json), wherever it is
 * installed: its dependencies are the bundled modules, found through the
 * loader's `extraRoots`.
 */
export const CLI_PACKAGE_DIR: string = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

/** The CLI's version, from its package.json. */
export const CLI_VERSION: string = (
  JSON.parse(fs.readFileSync(path.join(CLI_PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string }
).version;

/**
 * A loader resolving from `cwd` (its package.json and node_modules) and from
 * the CLI's own dependencies. It needs no session: give it to
 * `new AmplifierSession(plan, { loader })`, which passes its mounted
 * `module-source-resolver` to every load.
 */
export function createLoader(
  cwd: string,
  options: {
    /** @deprecated The session passes its resolver per load; a loader needs no coordinator. */
    coordinator?: Coordinator;
    logger?: Logger;
  } = {},
): ModuleLoader {
  return new ModuleLoader({ baseDir: cwd, extraRoots: [CLI_PACKAGE_DIR], ...options });
}

/**
 * `amplifier modules list`: id, type, package, version and the other ids each
 * module answers to (table, or JSON with --json); then each alias with its
 * note, and the placeholders with the reason they do not load.
 */
export async function listModules(
  cwd: string,
  display: Display,
  json: boolean,
  out: NodeJS.WritableStream,
): Promise<number> {
  const loader = createLoader(cwd, { logger: quietLogger(display) });
  const modules = await loader.discover();
  if (json) {
    out.write(`${JSON.stringify(modules.map(publicInfo), null, 2)}\n`);
    return EXIT_OK;
  }
  if (modules.length === 0) {
    display.warn(
      `No modules found from ${cwd}. Install some: npm install @amplifier/loop-basic @amplifier/context-simple`,
    );
    return EXIT_OK;
  }
  const rows = modules.map((m) => [
    m.id,
    m.type,
    m.name,
    m.version ?? '',
    (m.aliases ?? []).map((a) => a.id).join(', '),
  ]);
  out.write(table(['ID', 'TYPE', 'PACKAGE', 'VERSION', 'ALSO ANSWERS TO'], rows));
  out.write(aliasNotes(modules));
  return EXIT_OK;
}

/**
 * The aliases (sorted by id: `alias -> module  note`) and the placeholders
 * (`id: reason`) below the table; empty when there are none.
 */
export function aliasNotes(modules: readonly ModuleInfo[]): string {
  const available = modules.filter((m) => m.unavailable === undefined);
  const aliases = available
    .flatMap((m) => (m.aliases ?? []).map((a) => [a.id, `-> ${m.id}`, a.note ?? '']))
    .sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
  let text = '';
  if (aliases.length > 0) {
    const body = table(['', '', ''], aliases).split('\n').slice(1).join('\n');
    text += `\nAliases (ids of real Amplifier bundles this project answers with another module):\n${indent(body)}`;
  }
  const placeholders = modules.filter((m) => m.unavailable !== undefined);
  if (placeholders.length > 0) {
    const lines = placeholders.map(
      (m) => `${[m.id, ...(m.aliases ?? []).map((a) => a.id)].join(', ')}: ${m.unavailable}`,
    );
    text += `\nNot available (these ids fail to load):\n${indent(`${lines.join('\n')}\n`)}`;
  }
  return text;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n');
}

function publicInfo(m: ModuleInfo): Record<string, unknown> {
  return {
    id: m.id,
    type: m.type,
    package: m.name,
    version: m.version,
    path: m.path,
    aliases: m.aliases ?? [],
    ...(m.unavailable !== undefined && { unavailable: m.unavailable }),
  };
}

/**
 * Left-aligned columns separated by two spaces. Every cell is made
 * terminal-safe on one line first (core's `terminalSafe`): tables list names
 * and descriptions from MCP servers, tools, bundles and project files.
 */
export function table(header: string[], rawRows: string[][]): string {
  const rows = rawRows.map((row) => row.map((cell) => terminalSafe(cell)));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const format = (cells: string[]): string =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(format).join('\n')}\n`;
}

function quietLogger(display: Display): Logger {
  return {
    debug: (m) => display.debug(m),
    info: (m) => display.debug(m),
    warn: (m) => display.warn(m),
    error: (m) => display.error(m),
  };
}

function isPathLike(target: string): boolean {
  return (
    target.startsWith('.') ||
    target.startsWith('/') ||
    target.startsWith('~') ||
    target.startsWith('file:') ||
    fs.existsSync(target)
  );
}

/**
 * `amplifier module validate <path|id>`: core's validateModule; an id (or an alias) or a
 * package name is first looked up the way sessions find modules (the project,
 * then the CLI's bundled modules). Exit code 1 when a check of severity error fails.
 */
export async function validateCommand(
  target: string,
  options: { type?: string; cwd: string; json: boolean },
  display: Display,
  out: NodeJS.WritableStream,
): Promise<number> {
  if (options.type !== undefined && !(MODULE_TYPES as readonly string[]).includes(options.type)) {
    throw new CliError(`--type must be one of ${MODULE_TYPES.join(', ')}; got '${options.type}'`, EXIT_USAGE);
  }
  let where = target;
  if (!isPathLike(target)) {
    const found = (await createLoader(options.cwd, { logger: quietLogger(display) }).discover()).find(
      (m) => m.id === target || m.name === target || m.aliases?.some((alias) => alias.id === target),
    );
    if (found !== undefined) where = found.path;
  }
  // Imported here: only this command needs it (start-up time of the others).
  const { validateModule } = await import('@amplifier/testing/validation');
  const result = await validateModule(where, {
    baseDir: options.cwd,
    ...(options.type !== undefined && { type: options.type as ModuleType }),
  });
  if (options.json) {
    out.write(
      `${JSON.stringify({ target, path: where, passed: result.passed, summary: result.summary(), checks: result.checks }, null, 2)}\n`,
    );
  } else {
    const c = display.colors;
    const report = result
      .report()
      .split('\n')
      .map((line) => line.replace(/^(\s*)✓/, `$1${c.green('✓')}`).replace(/^(\s*)✗/, `$1${c.red('✗')}`))
      .join('\n');
    out.write(`${report}\n`);
  }
  return result.passed ? EXIT_OK : EXIT_ERROR;
}

/** A module entry of a plan whose `source` the loader does not use (a git URL...), and what stands in for it. */
export interface StandIn {
  module: string;
  source: string;
  /** `@amplifier/tool-filesystem 1.0.0`, or undefined when nothing installed stands in. */
  package?: string;
  /** Why nothing stands in (the loader's not-found message). */
  problem?: string;
}

/** `{ module, source }` of every entry of a plan (plain data: a bundle's, before validation). */
function sourcedEntries(plan: unknown): Array<{ module: string; source: string }> {
  const data = (plan ?? {}) as Record<string, unknown>;
  const session = (data.session ?? {}) as Record<string, unknown>;
  const entries = [
    session.orchestrator,
    session.context,
    ...['providers', 'tools', 'hooks'].flatMap((key) => (Array.isArray(data[key]) ? data[key] : [])),
  ];
  return entries.flatMap((entry) => {
    const { module, source } = (entry ?? {}) as { module?: unknown; source?: unknown };
    return typeof module === 'string' && typeof source === 'string' ? [{ module, source }] : [];
  });
}

/**
 * The entries of `plan` whose source the loader cannot use (a `git+https://...`
 * URL: module code is never fetched; a package name not installed) with the
 * installed package found by the module id instead, or the reason none is.
 * Resolving reads package.json files only: nothing is imported.
 */
export async function sourceStandIns(plan: unknown, loader: ModuleLoader): Promise<StandIn[]> {
  const standIns: StandIn[] = [];
  for (const { module, source } of sourcedEntries(plan)) {
    try {
      const resolved = await loader.resolve(module, { source });
      if (resolved.standsInFor === undefined) continue;
      const pkg = resolved.package;
      standIns.push({
        module,
        source,
        package: pkg === undefined ? resolved.entry : `${pkg.packageName} ${pkg.version}`,
      });
    } catch (error) {
      // Other problems (a bad manifest...) are the run's to report, with their own message.
      if (!AmplifierError.is(error, 'MODULE_NOT_FOUND')) continue;
      standIns.push({ module, source, problem: error.message });
    }
  }
  return standIns;
}

/** `git+https://github.com/microsoft/amplifier-module-loop-basic@main` → `amplifier-module-loop-basic@main`. */
function shortSource(source: string): string {
  if (!source.includes('://')) return source;
  const last = source
    .replace(/[#?].*$/, '')
    .replace(/\/+$/, '')
    .split('/')
    .pop();
  return last === undefined || last === '' ? source : last;
}

/**
 * The one-line notice of a run: which installed package stands in for each
 * source that is not fetched (undefined when there is none).
 */
export function standInNotice(standIns: readonly StandIn[]): string | undefined {
  const found = standIns.filter((s) => s.package !== undefined);
  if (found.length === 0) return undefined;
  return `module sources are not fetched; installed packages stand in (amplifier bundle show lists them): ${found
    .map((s) => `${shortSource(s.source)} → ${s.package}`)
    .join(', ')}`;
}
