/**
 * Files that config may read: the one resolver for every file reference that
 * config makes (bundle @mentions, includes, `context` files, agent files, a
 * context module's memory files). Config is not trusted to name any file on
 * the machine (docs/trust.md): a reference
 *
 * 1. is refused lexically when it starts with `~`, holds NUL or a control
 *    character, a backslash, a `$`, a URL scheme, a drive letter or a
 *    percent-encoded path character (`%2e`, `%2f`, `%5c`, `%25`, `%00`); an
 *    absolute path is held to the roots like any other;
 * 2. resolves against the folder of the file that declares it (never the
 *    process's directory), or the folder of its namespace (`ns:path`);
 * 3. must stay, after symlinks (`realpath`), inside one of the roots the
 *    caller gives (and inside its namespace's folder);
 * 4. is refused when it is a secret path (`@amplifier/secrets/paths`, the list the
 *    sandbox hides), even inside a root;
 * 5. is read only when it is a regular file (opened with O_NONBLOCK and
 *    O_NOFOLLOW, checked with fstat: a FIFO or a device never blocks), within
 *    a size cap per file and a total budget per reader.
 *
 * Every refusal is a `BundleReferenceError` naming the reference, the file that
 * declares it, why, and what to do. This entry point loads no YAML
 * (`@amplifier/bundles/references`), so context modules can use it cheaply.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AmplifierError, type CodesOf, defineErrors, type ErrorTable } from '@amplifier/core';
import { isSecretPath } from '@amplifier/secrets/paths';
import { BundleError, type BundleErrorOptions } from './errors.js';

/** The caps of one reader. */
export interface ReferenceLimits {
  /** Bytes of one file (default 256 KiB). */
  maxFileBytes: number;
  /** Bytes of every file one reader reads, together (default 1 MiB). */
  maxTotalBytes: number;
}

/** The default caps: 256 KiB a file, 1 MiB for all files of one reader (one system prompt, one bundle load). */
export const REFERENCE_LIMITS: Readonly<ReferenceLimits> = Object.freeze({
  maxFileBytes: 256 * 1024,
  maxTotalBytes: 1024 * 1024,
});

/** Why a reference was refused. */
export type ReferenceRefusal =
  | 'invalid'
  | 'outside'
  | 'secret'
  | 'not-a-file'
  | 'too-large'
  | 'over-budget'
  | 'missing'
  | 'unreadable'
  | 'unknown-namespace';

/** Options of `BundleReferenceError`. */
export interface BundleReferenceErrorOptions extends BundleErrorOptions {
  reference: string;
  declaredIn: string;
  reason: ReferenceRefusal;
  /** Where it points, when that is known (before symlinks). */
  target?: string | undefined;
}

/** A file reference of config that was refused (or is missing); the message names it, its file, why and what to do. */
export class BundleReferenceError extends BundleError {
  /** The reference as written (`@../x`, `ns:context/a.md`, `./AGENTS.md`). */
  readonly reference: string;
  /** The file that declares it. */
  readonly declaredIn: string;
  /** Why it was refused. */
  readonly reason: ReferenceRefusal;
  /** Where it points, when that is known (before symlinks). */
  readonly target: string | undefined;

  constructor(message: string, options: BundleReferenceErrorOptions) {
    super(message, options);
    this.name = 'BundleReferenceError';
    this.reference = options.reference;
    this.declaredIn = options.declaredIn;
    this.reason = options.reason;
    this.target = options.target;
  }
}

/** Who may be read: the roots and the namespaces of a reader. */
export interface ReferenceScope {
  /**
   * Folders references may reach (after symlinks): the bundle's own root,
   * the workspace. The caller chooses them; a reference outside every root is
   * refused.
   */
  roots: readonly string[];
  /** The user's home, for the secret paths under it (default: `os.homedir()`). */
  home?: string | undefined;
  /** `ns:path` references: namespace -> folder. The folder must itself lie in a root. */
  namespaces?: Readonly<Record<string, string>> | undefined;
  /**
   * The user's own namespaces (the CLI's `user` -> `$AMPLIFIER_HOME`): their
   * folder is a root for references through that namespace only. Used when
   * `namespaces` has no entry of that name.
   */
  ownNamespaces?: Readonly<Record<string, string>> | undefined;
  /**
   * The user's own folders under the home (`$AMPLIFIER_HOME`): `~/x` is
   * allowed only when it lands in one of them. Without them every `~` is
   * refused (bundles never read the home folder).
   */
  homeRoots?: readonly string[] | undefined;
  /**
   * Folders never read, even inside a root, besides core's secret paths (the
   * CLI: `$AMPLIFIER_HOME/projects`, where transcripts keep secrets verbatim).
   */
  denied?: readonly string[] | undefined;
}

/** Options of `referenceReader`. */
export interface ReferenceReaderOptions extends ReferenceScope {
  /** Caps (defaults: `REFERENCE_LIMITS`). */
  limits?: Partial<ReferenceLimits> | undefined;
}

/** How to resolve one reference. */
export interface ResolveHow {
  /** What declares it, for messages: `mention` (default), `include`, `context file`, `agent file`, `memory file`. */
  kind?: string;
  /** Suffixes tried in order after the name as written (the name itself first): `['.md']`. */
  suffixes?: readonly string[];
  /** Whether a folder is a valid target (a mention's folder gives a listing). */
  directories?: boolean;
  /** More roots for this reference only (the including bundle's own root). */
  roots?: readonly string[];
  /** The folder a relative reference starts from (default: the declaring file's folder). */
  base?: string;
  /** How messages name the reference (default: as given). */
  label?: string;
}

/** A reference that resolved inside the roots. */
export interface ResolvedReference {
  /** As written. */
  reference: string;
  /** The declaring file. */
  declaredIn: string;
  /** `mention`, `include`, ... */
  kind: string;
  /** The path as resolved, before symlinks (for labels). */
  path: string;
  /** The real path. */
  file: string;
  /** A file or a folder. */
  type: 'file' | 'directory';
}

/** The one resolver: resolve references, read them within the caps. One reader per prompt or load (its budget). */
export interface ReferenceReader {
  /** Resolve `reference`, declared in the file `declaredIn`; throws a `BundleReferenceError` (reason `missing` when nothing is there). */
  resolve(reference: string, declaredIn: string, how?: ResolveHow): ResolvedReference;
  /** The text of a resolved file, within the per-file cap and the reader's total budget. */
  read(target: ResolvedReference): string;
  /** Resolve and read in one step. */
  readReference(
    reference: string,
    declaredIn: string,
    how?: ResolveHow,
  ): { target: ResolvedReference; text: string };
  /** Bytes read so far. */
  readonly totalBytes: number;
}

const NAMESPACED = /^([A-Za-z0-9_-]+):(.*)$/s;
const ENCODED = /%(2e|2f|5c|25|00)/i;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Why `rel` (the path part of a reference) is refused lexically, or undefined when it may be resolved. */
function lexicalProblem(rel: string): string | undefined {
  if (rel === '') return 'it is empty';
  if (/[\u0000-\u001f\u007f]/.test(rel)) return 'it holds a NUL or control character';
  if (rel.startsWith('~')) return 'it names the home folder (~): config never reads from the home folder';
  if (/^[A-Za-z]:/.test(rel)) return 'it is a Windows drive path';
  if (rel.includes('\\')) return 'it holds a backslash (write paths with /)';
  if (rel.includes('$')) return 'it holds a $ (variables are not expanded in file references)';
  if (rel.includes('://') || SCHEME.test(rel)) return 'it is a URL (only files are read here)';
  if (ENCODED.test(rel))
    return 'it holds a percent-encoded path character (%2e, %2f, ...; write the path plainly)';
  return undefined;
}

const ADVICE: Record<ReferenceRefusal, string> = {
  invalid: 'Write a path relative to the declaring file, or ns:path into a loaded bundle.',
  outside:
    'Reference files inside the bundle or the workspace (copy the file in, or run from a workspace that holds it).',
  secret:
    'Keys, credentials and .env files are never read from config: put what the prompt needs in a plain file.',
  'not-a-file': 'Reference a regular file.',
  'too-large': 'Trim or split the file.',
  'over-budget': 'Reference fewer or smaller files.',
  missing: 'Check the path.',
  unreadable: 'Check the path and its permissions.',
  'unknown-namespace': 'Load the bundle of that name (include it), or write a relative path.',
};

function isInside(file: string, root: string): boolean {
  return file === root || file.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);
}

function realOrUndefined(folder: string): string | undefined {
  try {
    return fs.realpathSync(folder);
  } catch {
    return undefined;
  }
}

/** The real paths of the folders that exist, without duplicates. */
function realRoots(folders: readonly string[]): string[] {
  const out = new Set<string>();
  for (const folder of folders) {
    const real = realOrUndefined(path.resolve(folder));
    if (real !== undefined) out.add(real);
  }
  return [...out];
}

function code(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

/**
 * A reader over `options.roots`: the one way config's file references are
 * resolved and read. Roots that do not exist are dropped.
 */
export function referenceReader(options: ReferenceReaderOptions): ReferenceReader {
  const limits: ReferenceLimits = { ...REFERENCE_LIMITS, ...options.limits };
  const home = options.home ?? os.homedir();
  const roots = realRoots(options.roots);
  const homeRoots = realRoots(options.homeRoots ?? []);
  const denied = realRoots(options.denied ?? []);
  let total = 0;

  const refuse = (
    reason: ReferenceRefusal,
    reference: string,
    declaredIn: string,
    kind: string,
    why: string,
    target?: string,
  ): BundleReferenceError =>
    new BundleReferenceError(
      reason === 'missing'
        ? `The ${kind} '${reference}' in ${declaredIn} is not there: ${why}. ${ADVICE[reason]}`
        : `The ${kind} '${reference}' in ${declaredIn} is refused: ${why}. ${ADVICE[reason]}`,
      { reference, declaredIn, reason, target },
    );

  const allowed = (scope: readonly string[]): string =>
    scope.length === 0 ? 'no folder is allowed' : `allowed: ${scope.join(', ')}`;

  function resolve(reference: string, declaredIn: string, how: ResolveHow = {}): ResolvedReference {
    const kind = how.kind ?? 'mention';
    let target: string | undefined;
    const fail = (reason: ReferenceRefusal, why: string): BundleReferenceError =>
      refuse(reason, how.label ?? reference, declaredIn, kind, why, target);
    let base = path.resolve(how.base ?? path.dirname(path.resolve(declaredIn)));
    let rel = reference.startsWith('@') && kind === 'mention' ? reference.slice(1) : reference;
    if (rel.includes('://')) throw fail('invalid', 'it is a URL (only files are read here)');
    let scope = how.roots === undefined ? roots : [...roots, ...realRoots(how.roots)];
    let within: string | undefined;
    const match = NAMESPACED.exec(rel);
    if (match !== null && !/^[A-Za-z]:[\\/]/.test(rel)) {
      const ns = match[1] as string;
      rel = match[2] as string;
      const bundleFolder =
        options.namespaces !== undefined && Object.hasOwn(options.namespaces, ns)
          ? options.namespaces[ns]
          : undefined;
      const ownFolder =
        bundleFolder === undefined &&
        options.ownNamespaces !== undefined &&
        Object.hasOwn(options.ownNamespaces, ns)
          ? options.ownNamespaces[ns]
          : undefined;
      const folder = bundleFolder ?? ownFolder;
      if (folder === undefined) throw fail('unknown-namespace', `no namespace '${ns}' is loaded`);
      base = path.resolve(folder);
      within = realOrUndefined(base);
      if (within === undefined)
        throw fail('missing', `the folder of the namespace '${ns}' (${base}) is not there`);
      if (ownFolder !== undefined) scope = [within];
    }
    if (within === undefined && rel.startsWith('~/') && homeRoots.length > 0) {
      base = home;
      rel = rel.slice(2);
      scope = homeRoots;
    }
    const problem = lexicalProblem(rel);
    if (problem !== undefined) throw fail('invalid', problem);

    // Lexically first (from the real folder it starts at): a `..` that escapes is refused even when nothing is there.
    target = path.resolve(realOrUndefined(base) ?? base, rel);
    const outside = (file: string): string | undefined => {
      if (within !== undefined && !isInside(file, within))
        return `it leaves the folder of its namespace (${within}) and resolves to ${file}`;
      if (!scope.some((root) => isInside(file, root)))
        return `it resolves to ${file}, outside the bundle and the workspace (${allowed(scope)})`;
      return undefined;
    };
    const escapes = outside(target);
    if (escapes !== undefined) throw fail('outside', escapes);
    let folder: string | undefined;
    for (const suffix of ['', ...(how.suffixes ?? [])]) {
      const candidate = `${target}${suffix}`;
      let real: string;
      try {
        real = fs.realpathSync(candidate);
      } catch (error) {
        const c = code(error);
        if (c === 'ENOENT' || c === 'ENOTDIR') continue;
        throw fail('unreadable', `${candidate}: ${c}`);
      }
      const leaves = outside(real);
      if (leaves !== undefined) throw fail('outside', `${leaves} (through a symlink)`);
      if (isSecretPath(candidate, home) || isSecretPath(real, home)) {
        throw fail('secret', `${real} is a secret path (keys, credentials, .env files)`);
      }
      const closed = denied.find((folder) => isInside(real, folder));
      if (closed !== undefined) throw fail('secret', `${real} is in ${closed}, which config never reads`);
      const stat = fs.statSync(real, { throwIfNoEntry: false });
      if (stat === undefined) continue;
      if (stat.isDirectory()) {
        if (how.directories === true)
          return { reference, declaredIn, kind, path: candidate, file: real, type: 'directory' };
        folder ??= real;
        continue;
      }
      if (!stat.isFile())
        throw fail('not-a-file', `${real} is not a regular file (a FIFO, a socket or a device)`);
      return { reference, declaredIn, kind, path: candidate, file: real, type: 'file' };
    }
    if (folder !== undefined) throw fail('not-a-file', `${folder} is a folder, not a file`);
    throw fail(
      'missing',
      `no file ${target}${(how.suffixes ?? []).map((s) => ` or ${target}${s}`).join('')}`,
    );
  }

  function read(target: ResolvedReference): string {
    const fail = (reason: ReferenceRefusal, why: string): BundleReferenceError =>
      refuse(reason, target.reference, target.declaredIn, target.kind, why);
    if (target.type === 'directory') {
      let names: string[];
      try {
        names = fs
          .readdirSync(target.file, { withFileTypes: true })
          .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
          .sort();
      } catch (error) {
        throw fail('unreadable', `${target.file}: ${code(error)}`);
      }
      return `Directory listing of ${target.path}:\n${names.map((n) => `- ${n}`).join('\n')}`;
    }
    let text: string;
    try {
      text = readRegularFile(target.file, limits.maxFileBytes);
    } catch (error) {
      if (!(error instanceof FileReadError)) throw error;
      throw fail(error.reason, error.message);
    }
    const length = Buffer.byteLength(text);
    if (total + length > limits.maxTotalBytes) {
      throw fail(
        'over-budget',
        `reading it would bring the files read to ${total + length} bytes, over the budget of ${limits.maxTotalBytes}`,
      );
    }
    total += length;
    return text;
  }

  return {
    resolve,
    read,
    readReference(reference, declaredIn, how) {
      const target = resolve(reference, declaredIn, how);
      return { target, text: read(target) };
    },
    get totalBytes() {
      return total;
    },
  };
}

const readRows = {
  BUNDLE_FILE_REFUSED: {
    name: 'FileReadError',
    description: 'readRegularFile refused a file: not a regular file, over the cap, or unreadable (`reason`)',
  },
} as const;

/**
 * The code of `FileReadError`, declared in core's error factory. Not one of `BUNDLE_ERRORS`
 * (`BundleError.is` is false for it): the reader's callers turn it into a bundle error that names
 * the bundle, or skip the file.
 */
export const FILE_READ_ERRORS: ErrorTable<typeof readRows> = defineErrors(readRows);

declare module '@amplifier/core' {
  interface DeclaredErrorCodes extends CodesOf<typeof FILE_READ_ERRORS> {}
}

/** Why `readRegularFile` refused a file (code `BUNDLE_FILE_REFUSED`). */
export class FileReadError extends AmplifierError {
  declare readonly code: 'BUNDLE_FILE_REFUSED';
  /** `not-a-file`, `too-large` or `unreadable`. */
  readonly reason: 'not-a-file' | 'too-large' | 'unreadable';

  constructor(reason: 'not-a-file' | 'too-large' | 'unreadable', message: string) {
    super('BUNDLE_FILE_REFUSED', message);
    this.reason = reason;
  }
}

/**
 * The UTF-8 text of `file` when it is a regular file of at most `maxBytes`:
 * opened with O_NONBLOCK and O_NOFOLLOW (a FIFO or a device never blocks, a
 * symlink swapped in is not followed), checked with fstat, read to one byte
 * past the cap. Throws a `FileReadError` saying what was found.
 */
export function readRegularFile(file: string, maxBytes: number = REFERENCE_LIMITS.maxFileBytes): string {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
  } catch (error) {
    throw new FileReadError('unreadable', `${file}: ${code(error)}`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) {
      throw new FileReadError(
        'not-a-file',
        `${file} is not a regular file (a folder, a FIFO, a socket or a device)`,
      );
    }
    if (stat.size > maxBytes) {
      throw new FileReadError('too-large', `${file} has ${stat.size} bytes, over the cap of ${maxBytes}`);
    }
    // One byte past what fstat said, and past the cap at most: a file that grows past the cap meanwhile is caught.
    const buffer = Buffer.alloc(Math.min(maxBytes, stat.size) + 1);
    let length = 0;
    while (length < buffer.length) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > maxBytes)
      throw new FileReadError('too-large', `${file} is over the cap of ${maxBytes} bytes`);
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}
