/**
 * Finding modules: the loader the CLI uses (the project at --cwd plus the
 * CLI's own bundled modules), `amplifier modules list` and
 * `amplifier module validate`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type Coordinator,
  type Logger,
  MODULE_TYPES,
  type ModuleInfo,
  ModuleLoader,
  type ModuleType,
} from '@amplifier/core';
import { validateModule } from '@amplifier/testing/validation';
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

/** `amplifier modules list`: id, type, package, version (table, or JSON with --json). */
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
  const rows = modules.map((m) => [m.id, m.type, m.name, m.version ?? '']);
  out.write(table(['ID', 'TYPE', 'PACKAGE', 'VERSION'], rows));
  return EXIT_OK;
}

function publicInfo(m: ModuleInfo): Record<string, unknown> {
  return { id: m.id, type: m.type, package: m.name, version: m.version, path: m.path };
}

/** Left-aligned columns separated by two spaces. */
export function table(header: string[], rows: string[][]): string {
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
 * `amplifier module validate <path|id>`: core's validateModule; an id or a
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
      (m) => m.id === target || m.name === target,
    );
    if (found !== undefined) where = found.path;
  }
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
