/**
 * Every check an `agent.json` gets, as linter-style problems `{ path, message,
 * severity }`: the shipped schema (ajv through @amplifier/schema), then the rules the
 * schema cannot express (semver, interpreter and runtime, cwd and script
 * inside the folder, script included by `files`, inputs/outputs valid draft
 * 2020-12 schemas...). Reads files, never runs anything and never looks at the
 * host's environment.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DataError, JSONSchema } from '@amplifier/core';
import { compileSchema, type DataValidator } from '@amplifier/schema';
import picomatch from 'picomatch';
import semver from 'semver';
import { globSync } from 'tinyglobby';
import { filesEntryKind, filesMatcher } from './files.js';
import {
  AGENT_MANIFEST_SCHEMA,
  type AgentManifest,
  BARE_COMMANDS,
  interpreterFamily,
  MANIFEST_FILE,
  type ManifestProblem,
  modelToolName,
  scriptIndex,
} from './manifest.js';

/** Bigger manifests are refused unread. */
const MAX_MANIFEST_BYTES = 1024 * 1024;
const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const META_2020_12: JSONSchema = { $ref: DRAFT_2020_12 };
let validateManifestShape: DataValidator | undefined;

/** What checking a tool folder found. `manifest` is set only when no problem is an error. */
export interface ManifestCheck {
  /** The folder as given, resolved (its real path when it exists). */
  folder: string;
  manifest: AgentManifest | undefined;
  problems: ManifestProblem[];
  /** Real path of the working directory (`entrypoint.cwd`), when valid. */
  cwd?: string;
  /** Real path of the entry script, when valid. */
  script?: string;
}

export interface CheckOptions {
  /** Glob the folder to warn about `files` patterns that match nothing (lint only; costs a directory walk). */
  globFiles?: boolean;
}

/**
 * Check a tool folder's `agent.json` against the shipped schema and every rule
 * the schema cannot express (semver, interpreter and runtime, cwd and script
 * inside the folder, script included by `files`, inputs/outputs valid draft
 * 2020-12 schemas...). Never throws.
 */
export function checkManifest(folder: string, options: CheckOptions = {}): ManifestCheck {
  const problems: ManifestProblem[] = [];
  const error = (at: string, message: string): void => {
    problems.push({ path: at, message, severity: 'error' });
  };
  const warn = (at: string, message: string): void => {
    problems.push({ path: at, message, severity: 'warning' });
  };
  let root = path.resolve(folder);
  const result = (): ManifestCheck => ({ folder: root, manifest: undefined, problems });

  const stat = fs.statSync(root, { throwIfNoEntry: false });
  if (stat === undefined) {
    error('', `tool folder ${root} does not exist`);
    return result();
  }
  if (!stat.isDirectory()) {
    error('', `${root} is not a folder (a tool is a folder holding ${MANIFEST_FILE})`);
    return result();
  }
  root = fs.realpathSync.native(root);
  const data = readManifestJson(path.join(root, MANIFEST_FILE), error);
  if (data === undefined) return result();

  validateManifestShape ??= compileSchema(AGENT_MANIFEST_SCHEMA);
  for (const problem of validateManifestShape(data)) error(problem.path, problem.message);
  if (!isRecord(data)) return result();

  const check: ManifestCheck = { folder: root, manifest: undefined, problems };
  checkVersions(data, error);
  checkFiles(root, data, error, warn, options);
  checkEntrypoint(root, data, check, error, warn);
  for (const key of ['inputs', 'outputs'] as const) checkSchema(key, data[key], error);
  checkDocs(root, data, warn);
  checkNames(data, warn);

  if (!problems.some((p) => p.severity === 'error')) check.manifest = data as unknown as AgentManifest;
  return check;
}

/**
 * Lint a tool folder: every problem of its `agent.json` (JSON paths inside
 * the manifest; `''` for the file itself), errors first. Pure apart from
 * reading the folder. The CLI's `amplifier tool lint <folder>` prints these and
 * exits 1 when one is an error.
 */
export function lintManifest(folder: string): ManifestProblem[] {
  const { problems } = checkManifest(folder, { globFiles: true });
  return [...problems].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
}

/** One line per problem, like a linter: `agent.json: error entrypoint.args[0]: ...`. */
export function formatManifestProblems(
  problems: readonly ManifestProblem[],
  file: string = MANIFEST_FILE,
): string {
  return problems.map((p) => `${file}: ${p.severity} ${p.path || '(file)'}: ${p.message}`).join('\n');
}

// ---------------------------------------------------------------- the checks

type Report = (at: string, message: string) => void;

function readManifestJson(file: string, error: Report): unknown {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    error(
      '',
      code === 'ENOENT' ? `no ${MANIFEST_FILE} in ${path.dirname(file)}` : `cannot read ${file}: ${code}`,
    );
    return undefined;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) {
      error('', `${file} is not a regular file`);
      return undefined;
    }
    if (stat.size > MAX_MANIFEST_BYTES) {
      error('', `${MANIFEST_FILE} is ${stat.size} bytes; the limit is ${MAX_MANIFEST_BYTES}`);
      return undefined;
    }
    const text = fs.readFileSync(fd, 'utf8');
    try {
      return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch (cause) {
      error('', `${MANIFEST_FILE} is not valid JSON: ${(cause as Error).message}`);
      return undefined;
    }
  } finally {
    fs.closeSync(fd);
  }
}

function checkVersions(data: Record<string, unknown>, error: Report): void {
  if (typeof data.version === 'string' && data.version !== '' && semver.valid(data.version) === null) {
    error('version', `"${data.version}" is not a semantic version (like 1.2.3)`);
  }
  const runtime = data.runtime;
  if (isRecord(runtime) && typeof runtime.version === 'string' && runtime.version !== '') {
    if (semver.validRange(runtime.version) === null) {
      error('runtime.version', `"${runtime.version}" is not a semver range (like >=20 or ^3.10)`);
    }
  }
}

function checkFiles(
  root: string,
  data: Record<string, unknown>,
  error: Report,
  warn: Report,
  options: CheckOptions,
): void {
  if (!Array.isArray(data.files)) return;
  data.files.forEach((glob, i) => {
    if (typeof glob !== 'string' || glob === '') return;
    if (path.isAbsolute(glob) || glob.split(/[\\/]/).includes('..')) {
      error(`files[${i}]`, `"${glob}" must be relative to the tool folder and stay inside it`);
      return;
    }
    const kind = filesEntryKind(root, glob);
    if (kind === 'file') return;
    if (kind === 'directory') {
      // AgentPM's packager includes every file below a directory entry, and skips one that is missing.
      if (options.globFiles && !fs.existsSync(path.join(root, glob))) {
        warn(`files[${i}]`, `the directory "${glob}" does not exist in the tool folder`);
      }
      return;
    }
    try {
      picomatch.makeRe(glob);
    } catch (cause) {
      error(`files[${i}]`, `"${glob}" is not a valid glob: ${(cause as Error).message}`);
      return;
    }
    if (options.globFiles && globSync(glob, { cwd: root, dot: true, onlyFiles: true }).length === 0) {
      warn(`files[${i}]`, `"${glob}" matches no file`);
    }
  });
}

function checkEntrypoint(
  root: string,
  data: Record<string, unknown>,
  check: ManifestCheck,
  error: Report,
  warn: Report,
): void {
  const entry = data.entrypoint;
  if (!isRecord(entry)) return;
  const { command } = entry;
  if (typeof command === 'string' && command !== '') {
    if (!BARE_COMMANDS.includes(command) && !path.isAbsolute(command)) {
      error(
        'entrypoint.command',
        `"${command}" must be one of ${BARE_COMMANDS.join(', ')} or an absolute path`,
      );
    } else if (isRecord(data.runtime) && (data.runtime.type === 'node' || data.runtime.type === 'python')) {
      const family = interpreterFamily(command);
      if (family === undefined) {
        error(
          'entrypoint.command',
          `cannot tell which interpreter "${command}" is; runtime.type "${data.runtime.type}" needs a command named ${data.runtime.type === 'node' ? 'node or nodejs' : 'python or python3'}`,
        );
      } else if (family !== data.runtime.type) {
        error('runtime.type', `is "${data.runtime.type}" but entrypoint.command "${command}" runs ${family}`);
      }
    }
  }

  let cwd: string | undefined = root;
  if (typeof entry.cwd === 'string' && entry.cwd !== '') {
    cwd = insideFolder(root, entry.cwd, 'directory', (message) => error('entrypoint.cwd', message));
  }
  if (cwd !== undefined) check.cwd = cwd;

  const args = entry.args;
  if (!Array.isArray(args) || args.length === 0 || !args.every((a) => typeof a === 'string')) return;
  const index = scriptIndex(args);
  if (index === -1) {
    error('entrypoint.args', 'must name the script file (the first argument not starting with "-")');
    return;
  }
  const at = `entrypoint.args[${index}]`;
  if (cwd === undefined) return;
  const script = insideFolder(cwd, args[index]!, 'file', (message) => error(at, message), root);
  if (script === undefined) return;
  check.script = script;
  const relative = path.relative(root, script).split(path.sep).join('/');
  const files = Array.isArray(data.files)
    ? data.files.filter((g): g is string => typeof g === 'string' && g !== '')
    : [];
  if (files.length > 0 && !filesMatcher(root, files)(relative)) {
    // AgentPM's packager adds the entrypoint script whatever `files` says: worth a warning only.
    warn(
      at,
      `the script "${relative}" is not included by files (${JSON.stringify(files)}); AgentPM's packager adds it anyway, list it to make that explicit`,
    );
  }
}

/**
 * `target` resolved against `base`: its real path when it exists, is of `kind`
 * and stays inside `root` (default `base`); otherwise reports why and returns undefined.
 */
function insideFolder(
  base: string,
  target: string,
  kind: 'file' | 'directory',
  report: (message: string) => void,
  root: string = base,
): string | undefined {
  if (path.isAbsolute(target)) {
    report(`"${target}" must be a path relative to the tool folder`);
    return undefined;
  }
  const resolved = path.resolve(base, target);
  let real: string;
  try {
    real = fs.realpathSync.native(resolved);
  } catch {
    report(`"${target}" does not exist in the tool folder`);
    return undefined;
  }
  const relative = path.relative(root, real);
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    report(`"${target}" leaves the tool folder (it resolves to ${real})`);
    return undefined;
  }
  const stat = fs.statSync(real);
  if (kind === 'file' ? !stat.isFile() : !stat.isDirectory()) {
    report(`"${target}" is not a ${kind}`);
    return undefined;
  }
  return real;
}

function checkSchema(key: 'inputs' | 'outputs', schema: unknown, error: Report): void {
  if (!isRecord(schema)) return;
  const declared = schema.$schema;
  if (
    declared !== undefined &&
    (typeof declared !== 'string' || declared.replace(/#$/, '') !== DRAFT_2020_12)
  ) {
    error(`${key}.$schema`, `must be "${DRAFT_2020_12}" when given (AgentPM schemas are draft 2020-12)`);
    return;
  }
  const metaErrors = compileSchema(META_2020_12)(schema);
  for (const problem of metaErrors) error(join(key, problem), problem.message);
  if (metaErrors.length === 0) {
    try {
      compileSchema(schema as JSONSchema);
    } catch (cause) {
      error(key, `does not compile: ${(cause as Error).message}`);
    }
  }
  if (key === 'inputs' && schema.type !== 'object') {
    error('inputs.type', 'must be "object" (a tool is always called with an object)');
  }
}

function checkDocs(root: string, data: Record<string, unknown>, warn: Report): void {
  const files = Array.isArray(data.files)
    ? data.files.filter((g): g is string => typeof g === 'string' && g !== '')
    : [];
  const docs: [string, unknown][] = [['readme', data.readme]];
  if (isRecord(data.license)) docs.push(['license.file', data.license.file]);
  for (const [at, file] of docs) {
    if (typeof file !== 'string' || file === '') continue;
    const real = insideFolder(root, file, 'file', (message) => warn(at, message));
    if (real === undefined) continue;
    const relative = path.relative(root, real).split(path.sep).join('/');
    if (files.length > 0 && !filesMatcher(root, files)(relative)) {
      warn(at, `"${relative}" is not included by files, so it would not ship with the package`);
    }
  }
}

function checkNames(data: Record<string, unknown>, warn: Report): void {
  if (typeof data.name === 'string' && /--|-$/.test(data.name)) {
    warn('name', `the model sees "${modelToolName(data.name)}"; avoid doubled and trailing hyphens`);
  }
  const entry = data.entrypoint;
  const vars = isRecord(data.environment) ? data.environment.vars : undefined;
  if (!isRecord(entry) || !isRecord(entry.env) || !isRecord(vars)) return;
  for (const name of Object.keys(entry.env)) {
    if (name in vars) {
      warn(`entrypoint.env.${name}`, 'is also declared in environment.vars; the declared variable wins');
    }
  }
}

function join(key: string, problem: DataError): string {
  if (problem.path === '') return key;
  return problem.path.startsWith('[') ? `${key}${problem.path}` : `${key}.${problem.path}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
