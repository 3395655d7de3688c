/**
 * One bundle file as data: the YAML of a `.yaml`/`.yml` file, or the front
 * matter of a `.md` file with its body as the instruction (reference A1/A2).
 * Module lists are checked (A3) and `./` sources made absolute against the
 * declaring file. Nothing is fetched here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AmplifierError, isPlainObject, MAX_DATA_DEPTH, ownData, setOwn } from '@amplifier/core';
import { parseDocument } from 'yaml';
import { BundleLoadError, BundleNotFoundError, BundleValidationError } from './errors.js';
import { FileReadError, REFERENCE_LIMITS, readRegularFile } from './references.js';

/** A module entry of `providers`, `tools` or `hooks` (and the dict form of the session's modules). */
export interface ModuleEntry {
  module?: string;
  source?: string;
  config?: Record<string, unknown>;
  /** The merge key (defaults to `module`). */
  id?: string;
  [key: string]: unknown;
}

/** A `context` entry: its key (`ns:path`) and where to find the file. */
export interface ContextEntry {
  key: string;
  /** As written: `ns:path` (found through the namespaces once all are known) or a path relative to `declaredIn`. */
  ref: string;
  /** The bundle file that declares it (relative paths start from its folder). */
  declaredIn: string;
}

/** What one bundle file declares, or a composition of several (`compose`). */
export interface BundleData {
  /** `bundle.name`: the namespace of the bundle's files. */
  name: string;
  version: string;
  description: string;
  /** `bundle.namespace_root`: the folder (relative to `basePath`) that holds `agents/` and `context/`. */
  namespaceRoot?: string | undefined;
  /** `includes`, as written (strings). */
  includes: string[];
  session: Record<string, unknown>;
  spawn: Record<string, unknown>;
  providers: ModuleEntry[];
  tools: ModuleEntry[];
  hooks: ModuleEntry[];
  /** The roster: agent name -> config (`agents.include` entries are `{ name }`). */
  agents: Record<string, Record<string, unknown>>;
  context: ContextEntry[];
  /** The Markdown body (trimmed); undefined when empty or for YAML bundles. */
  instruction?: string | undefined;
  /** The file whose body is `instruction` (its @mentions start from its folder). */
  instructionFile?: string | undefined;
  /** The folder of the bundle file. */
  basePath: string;
  /** What the loader was given for this file (an absolute path or a URI). */
  source: string;
  /** Things that were ignored (unknown keys, a string `agents` value, ...). */
  warnings: string[];
}

const SECTIONS = new Set([
  'bundle',
  'includes',
  'session',
  'providers',
  'tools',
  'hooks',
  'spawn',
  'agents',
  'context',
]);
const MODULE_SECTIONS = ['providers', 'tools', 'hooks'] as const;
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?\r?\n)?---[ \t]*(?:\r?\n|$)/;

/** The files a folder may hold, best first (`bundle.md` wins over `bundle.yaml`). */
export const BUNDLE_FILES: readonly string[] = ['bundle.md', 'bundle.yaml', 'bundle.yml'];

/** A bundle file for `target`: the file itself, or `bundle.md` / `bundle.yaml` in a folder. */
export function bundleFileAt(target: string): string {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (stat === undefined) throw new BundleNotFoundError(`No bundle at ${target}: no such file or folder.`);
  if (stat.isDirectory()) {
    for (const name of BUNDLE_FILES) {
      const file = path.join(target, name);
      if (fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return file;
    }
    throw new BundleLoadError(`The folder ${target} holds no bundle.md or bundle.yaml.`);
  }
  if (!/\.(md|ya?ml)$/i.test(target)) {
    throw new BundleLoadError(
      `${target} is not a bundle: a bundle is a .md, .yaml or .yml file, or a folder.`,
    );
  }
  return target;
}

/** Read and parse the bundle at `target` (a file or a folder): a regular file of at most `maxBytes` (256 KiB). */
export function readBundleFile(
  target: string,
  source: string = target,
  maxBytes: number = REFERENCE_LIMITS.maxFileBytes,
): BundleData {
  const file = bundleFileAt(target);
  let text: string;
  try {
    // A bundle named by its path may be a symlink (the user's choice, or an include the resolver
    // already confined by its real path): read what it points at, still a regular file only.
    text = readRegularFile(realpathOr(file), maxBytes);
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    throw new BundleLoadError(
      `Cannot read the bundle ${file}: ${error.message}. A bundle is a regular file.`,
    );
  }
  return parseBundleText(text, file, source);
}

/** Split a Markdown bundle into its front matter (YAML text, maybe empty) and body. */
export function splitFrontMatter(text: string): { yaml: string | undefined; body: string } {
  const clean = text.replace(/^\uFEFF/, '');
  const match = FRONT_MATTER.exec(clean);
  if (match === null) return { yaml: undefined, body: clean };
  return { yaml: match[1] ?? '', body: clean.slice(match[0].length) };
}

/** Parse the text of a bundle file (`file` gives the format by its suffix and the base path). */
export function parseBundleText(text: string, file: string, source: string = file): BundleData {
  const markdown = /\.md$/i.test(file);
  let yamlText: string | undefined;
  let instruction: string | undefined;
  if (markdown) {
    const { yaml, body } = splitFrontMatter(text);
    yamlText = yaml;
    instruction = body.trim() || undefined;
  } else {
    yamlText = text.replace(/^\uFEFF/, '');
  }
  const data = yamlText === undefined ? {} : parseYaml(yamlText, file);
  return fromData(data, file, source, instruction);
}

/**
 * Indent the continuation lines of a multi-line quoted scalar that start
 * less indented than its key. Strict YAML refuses them; PyYAML, which wrote
 * and reads the reference's agent files, accepts them. The content is the
 * same: continuation lines are folded with their leading spaces dropped.
 */
export function indentQuotedContinuations(text: string): string {
  const lines = text.split('\n');
  let quote: '"' | "'" | undefined;
  let indent = '';
  const out: string[] = [];
  for (const line of lines) {
    let start = 0;
    let current = line;
    if (quote === undefined) {
      const match = /^(\s*)(?:-\s+)?[^\s#'"][^:#]*:\s+(["'])/.exec(line);
      if (match === null) {
        out.push(line);
        continue;
      }
      quote = match[2] as '"' | "'";
      indent = `${match[1] ?? ''}  `;
      start = match[0].length;
    } else if (line.trim() !== '' && !line.startsWith(indent)) {
      current = indent + line.trimStart();
      start = indent.length;
    }
    out.push(current);
    // Find the closing quote on this line (escapes: \" in double, '' in single quotes).
    for (let i = start; i < current.length; i++) {
      const c = current[i];
      if (quote === '"' && c === '\\') i++;
      else if (quote === "'" && c === "'" && current[i + 1] === "'") i++;
      else if (c === quote) {
        quote = undefined;
        break;
      }
    }
  }
  return out.join('\n');
}

/** The YAML mapping of a bundle or agent file (empty for an empty document); throws a `BundleError` naming the file. */
export function parseYaml(text: string, file: string): Record<string, unknown> {
  let doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    // Real agent files (PyYAML reads them) continue quoted strings at column 0: indent and retry.
    const repaired = indentQuotedContinuations(text);
    if (repaired !== text) {
      const retry = parseDocument(repaired, { prettyErrors: true });
      if (retry.errors.length === 0) doc = retry;
    }
  }
  if (doc.errors.length > 0) {
    const problems = doc.errors
      .map((e) => {
        // prettyErrors puts the source excerpt after "...at line 3, column 1:"; the position is enough.
        const first = (e.message.split('\n')[0] ?? e.message).replace(/:\s*$/, '');
        return `  - ${first.replace(/^Maximum call stack size exceeded/, `nested more than ${MAX_DATA_DEPTH} levels deep`)}`;
      })
      .join('\n');
    throw new BundleLoadError(`Cannot parse the bundle ${file} (YAML):\n${problems}`);
  }
  let value: unknown;
  try {
    value = ownData(doc.toJS() as unknown);
  } catch (error) {
    if (!AmplifierError.is(error)) throw error;
    throw new BundleLoadError(`Cannot read the bundle ${file}: ${error.message}`);
  }
  if (value === null || value === undefined) return {};
  if (!isPlainObject(value)) {
    throw new BundleValidationError(
      `The bundle ${file} must be a mapping of sections (bundle, includes, session, ...).`,
    );
  }
  return value as Record<string, unknown>;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function isRelative(source: string): boolean {
  return source === '.' || source === '..' || source.startsWith('./') || source.startsWith('../');
}

/** `{module, source?, config?, id?}` with a relative source made absolute; throws for a bad entry. */
function moduleEntry(value: unknown, where: string, file: string, dir: string): ModuleEntry {
  if (!isPlainObject(value)) {
    throw new BundleValidationError(
      `The bundle ${file} has a malformed ${where}: each entry is a mapping {module, source?, config?}, not ${describe(value)}.`,
    );
  }
  const entry: ModuleEntry = { ...(value as Record<string, unknown>) };
  for (const key of ['module', 'source', 'id'] as const) {
    if (entry[key] !== undefined && typeof entry[key] !== 'string') {
      throw new BundleValidationError(
        `The bundle ${file} has a malformed ${where}.${key}: it must be a string.`,
      );
    }
  }
  if (entry.config !== undefined && entry.config !== null && !isPlainObject(entry.config)) {
    throw new BundleValidationError(
      `The bundle ${file} has a malformed ${where}.config: it must be a mapping.`,
    );
  }
  if (entry.config === null) delete entry.config;
  if (typeof entry.source === 'string' && isRelative(entry.source))
    entry.source = path.resolve(dir, entry.source);
  return entry;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'string' ? `the string '${value}'` : `a ${typeof value}`;
}

/** A module list (`providers`, `tools`, `hooks`) of the file `file`: entries checked, `./` sources made absolute against `dir`. */
export function moduleList(value: unknown, field: string, file: string, dir: string): ModuleEntry[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    throw new BundleValidationError(
      `The bundle ${file} has a malformed ${field}: it must be a list of module entries.`,
    );
  }
  return value.map((item, i) => moduleEntry(item, `${field}[${i}]`, file, dir));
}

function mapping(value: unknown, field: string, file: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value))
    throw new BundleValidationError(`The bundle ${file} has a malformed ${field}: it must be a mapping.`);
  return { ...(value as Record<string, unknown>) };
}

function includeList(value: unknown, file: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new BundleValidationError(`The bundle ${file} has a malformed includes: it must be a list.`);
  return value.map((item, i) => {
    const ref = isPlainObject(item) ? (item as Record<string, unknown>).bundle : item;
    if (typeof ref !== 'string' || ref.trim() === '') {
      throw new BundleValidationError(
        `The bundle ${file} has a malformed includes[${i}]: write a bundle reference as a string or {bundle: <ref>}.`,
      );
    }
    return ref.trim();
  });
}

function sessionSection(value: unknown, file: string, dir: string): Record<string, unknown> {
  const session = mapping(value, 'session', file);
  for (const key of ['orchestrator', 'context'] as const) {
    const ref = session[key];
    if (ref === undefined || typeof ref === 'string') continue;
    if (!isPlainObject(ref)) {
      throw new BundleValidationError(
        `The bundle ${file} has a malformed session.${key}: a module id or {module, source?, config?}.`,
      );
    }
    session[key] = moduleEntry(ref, `session.${key}`, file, dir);
  }
  return session;
}

function agentsSection(
  value: unknown,
  file: string,
  warnings: string[],
): Record<string, Record<string, unknown>> {
  const roster: Record<string, Record<string, unknown>> = {};
  if (value === undefined || value === null) return roster;
  if (!isPlainObject(value)) {
    warnings.push(`${file}: agents is ${describe(value)}, not a mapping: no agents taken from it`);
    return roster;
  }
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'include') {
      if (!Array.isArray(entry))
        throw new BundleValidationError(
          `The bundle ${file} has a malformed agents.include: it must be a list.`,
        );
      for (const name of entry) {
        if (typeof name !== 'string')
          throw new BundleValidationError(
            `The bundle ${file} has a malformed agents.include entry: names are strings (ns:name).`,
          );
        setOwn(roster, name, { name });
      }
    } else if (isPlainObject(entry)) {
      setOwn(roster, key, { ...(entry as Record<string, unknown>) });
    } else {
      throw new BundleValidationError(
        `The bundle ${file} has a malformed agents.${key}: an agent is a mapping.`,
      );
    }
  }
  return roster;
}

function contextSection(value: unknown, name: string, file: string): ContextEntry[] {
  const entries: ContextEntry[] = [];
  const section = mapping(value, 'context', file);
  const prefixed = (key: string): string => (key.includes(':') || name === '' ? key : `${name}:${key}`);
  for (const [key, entry] of Object.entries(section)) {
    if (key === 'include') {
      if (!Array.isArray(entry))
        throw new BundleValidationError(
          `The bundle ${file} has a malformed context.include: it must be a list.`,
        );
      for (const ref of entry) {
        if (typeof ref !== 'string')
          throw new BundleValidationError(
            `The bundle ${file} has a malformed context.include entry: paths are strings.`,
          );
        entries.push({ key: ref.includes(':') ? ref : prefixed(ref), ref, declaredIn: file });
      }
    } else if (typeof entry === 'string') {
      entries.push({ key: prefixed(key), ref: entry, declaredIn: file });
    } else {
      throw new BundleValidationError(`The bundle ${file} has a malformed context.${key}: a relative path.`);
    }
  }
  return entries;
}

function fromData(
  data: Record<string, unknown>,
  file: string,
  source: string,
  instruction: string | undefined,
): BundleData {
  const dir = path.dirname(file);
  const warnings: string[] = [];
  for (const key of Object.keys(data)) {
    if (!SECTIONS.has(key)) warnings.push(`${file}: '${key}' is not a bundle section (ignored)`);
  }
  const meta = mapping(data.bundle, 'bundle', file);
  const name = text(meta.name);
  const namespaceRoot = text(meta.namespace_root) || undefined;
  const bundle: BundleData = {
    name,
    version: text(meta.version) || '1.0.0',
    description: text(meta.description),
    namespaceRoot,
    includes: includeList(data.includes, file),
    session: sessionSection(data.session, file, dir),
    spawn: mapping(data.spawn, 'spawn', file),
    providers: [],
    tools: [],
    hooks: [],
    agents: agentsSection(data.agents, file, warnings),
    context: contextSection(data.context, name, file),
    instruction,
    instructionFile: instruction === undefined ? undefined : file,
    basePath: dir,
    source,
    warnings,
  };
  for (const section of MODULE_SECTIONS) bundle[section] = moduleList(data[section], section, file, dir);
  return bundle;
}

/** The real path of `file`, or `file` itself when it cannot be resolved (the read then says why). */
function realpathOr(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}
