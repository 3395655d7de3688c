/**
 * Rule conditions on path arguments (`file_path`, `path`, ... : the names in
 * `path_arguments`). A path is matched as the file system will read it, not
 * as it is written: every spelling the call's value can stand for is made
 * absolute against the session's working directory and normalised (`.`, `..`,
 * repeated and trailing slashes, `~`), and resolved to its real path (symlinks,
 * also for a file that does not exist yet). The rule's pattern is made
 * absolute the same way (a relative pattern is relative to the working
 * directory) and also stands for its real location. A deny or ask condition
 * matches when any spelling matches; an allow condition only when every
 * spelling does and the real path is known (fail closed).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expandHome, realPathSync } from '@amplifier/process/paths';
import picomatch from 'picomatch';

/** Argument names (the last segment of a `when` key) whose values are file system paths. */
export const DEFAULT_PATH_ARGUMENTS: readonly string[] = Object.freeze([
  'file_path',
  'path',
  'paths',
  'notebook_path',
  'save_to_file',
]);

/**
 * Tools whose `path` defaults to the working directory, and whether their
 * `pattern` is a glob whose literal leading directories are where the search
 * starts (tool-filesystem's `glob` and `grep`).
 */
const SEARCH_TOOLS: ReadonlyMap<string, { globPattern: boolean }> = new Map([
  ['glob', { globPattern: true }],
  ['grep', { globPattern: false }],
]);

/** File systems that ignore case by default: macOS and Windows. Linux compares names byte for byte. */
const NOCASE = process.platform === 'darwin' || process.platform === 'win32';

/** Escape glob syntax so a directory name is matched literally (`a(1)` stays `a(1)`). */
function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{}()!+@|]/g, '\\$&');
}

/** Undo glob escapes (`a\*b` is the name `a*b`). */
function unescapeGlob(text: string): string {
  return text.replace(/\\(.)/gs, '$1');
}

/**
 * The real path of the absolute path `abs` as the OS would resolve it, also
 * when it does not exist yet (`realPathSync` of @amplifier/process, which
 * tool-filesystem's sandbox resolves with too). Undefined when it cannot be
 * resolved (a loop, no permission, a file used as a directory, a NUL byte).
 */
export function realPathOf(abs: string): string | undefined {
  try {
    return realPathSync(abs);
  } catch {
    return undefined;
  }
}

/** The absolute spellings of one argument value, and whether each real path was found. */
export interface PathSpellings {
  /** Normalised absolute paths and real paths of every reading of the value (deduplicated). */
  paths: string[];
  /** False when some reading's real path could not be resolved (an allow then never matches). */
  resolved: boolean;
}

/**
 * Every absolute path `value` can stand for under `workingDir`: as written
 * (`~` expanded, made absolute, `.`/`..`/`//`/trailing `/` normalised), with
 * backslashes read as separators, and as a `file:` URL; each also as its real
 * path. `below` is appended first (the literal base of a glob pattern).
 */
export function pathSpellings(value: string, workingDir: string, below = ''): PathSpellings {
  const readings = [value === '' ? '.' : value];
  let resolved = true;
  if (value.includes('\\')) readings.push(value.replace(/\\/g, '/'));
  if (/^file:/i.test(value)) {
    try {
      readings.push(fileURLToPath(value));
    } catch {
      resolved = false; // a file URL Node cannot read as a local path (a remote host): never allowed
    }
  }
  const out = new Set<string>();
  for (const reading of readings) {
    const abs = path.resolve(workingDir, expandHome(reading), below);
    out.add(abs);
    const real = realPathOf(abs);
    if (real === undefined) resolved = false;
    else out.add(real);
  }
  return { paths: [...out], resolved };
}

/**
 * The paths a path condition of `tool` sees for the argument at `key` (the
 * `when` key's segments), or undefined when the value holds no path (missing,
 * a number, an object). A string is a path, an array's strings are paths.
 * For a search tool, a missing `path` is the working directory, and a glob
 * tool's search starts below it at the literal leading directories of
 * `pattern`.
 */
export function argumentPaths(
  tool: string,
  input: Record<string, unknown>,
  key: readonly string[],
  value: unknown,
  workingDir: string,
): PathSpellings | undefined {
  const search = key.length === 1 && key[0] === 'path' ? SEARCH_TOOLS.get(tool) : undefined;
  if (search !== undefined) {
    if (value !== undefined && typeof value !== 'string') return undefined;
    const pattern = input.pattern;
    const below =
      search.globPattern && typeof pattern === 'string' ? unescapeGlob(picomatch.scan(pattern).base) : '';
    return pathSpellings(value ?? '.', workingDir, expandHome(below));
  }
  const values: unknown[] | undefined =
    typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  const strings = values?.filter((v): v is string => typeof v === 'string') ?? [];
  if (strings.length === 0) return undefined;
  const paths = new Set<string>();
  // An element that is not a string is no path: a deny still sees the others, an allow never holds.
  let resolved = strings.length === values!.length;
  for (const item of strings) {
    const spelled = pathSpellings(item, workingDir);
    for (const p of spelled.paths) paths.add(p);
    resolved &&= spelled.resolved;
  }
  return { paths: [...paths], resolved };
}

/**
 * A rule's pattern on a path argument. A glob is made absolute: a relative
 * one is relative to the working directory, `~` is the home directory, its
 * literal leading directories are normalised, and it also stands for their
 * real path; a glob starting with `**` matches at any depth anywhere, as
 * written. A leading `!` negates. A `/regex/flags` is tried on each absolute
 * spelling as it is.
 */
export class PathPattern {
  readonly #regex: RegExp | undefined;
  readonly #negated: boolean;
  /** The literal leading directories (unescaped, as written), or undefined for an `**` pattern. */
  readonly #base: string | undefined;
  readonly #glob: string;
  readonly #matchers = new Map<string, (text: string) => boolean>();

  constructor(pattern: string, regex: RegExp | undefined) {
    this.#regex = regex;
    const scan = picomatch.scan(pattern);
    this.#negated = regex === undefined && scan.negated;
    const body = this.#negated ? pattern.slice(scan.prefix.length) : pattern;
    if (body.startsWith('**')) {
      this.#base = undefined;
      this.#glob = body;
    } else {
      const parts = this.#negated ? picomatch.scan(body) : scan;
      this.#base = unescapeGlob(parts.base);
      this.#glob = parts.glob;
    }
  }

  /**
   * The test of this pattern under `workingDir`, for absolute normalised
   * paths (the pattern's real location is looked up once, here).
   */
  under(workingDir: string): (candidate: string) => boolean {
    const regex = this.#regex;
    if (regex !== undefined) return (candidate) => regex.test(candidate);
    const matchers = this.#patterns(workingDir).map((full) => this.#matcher(full));
    const negated = this.#negated;
    return (candidate) => matchers.some((m) => m(candidate)) !== negated;
  }

  /** The absolute globs this pattern stands for: its base as written (normalised) and as a real path. */
  #patterns(workingDir: string): string[] {
    if (this.#base === undefined) return [this.#glob];
    const lexical = path.resolve(workingDir, expandHome(this.#base));
    const real = realPathOf(lexical);
    const bases = real === undefined || real === lexical ? [lexical] : [lexical, real];
    return bases.map((base) => {
      const escaped = escapeGlob(base);
      if (this.#glob === '') return escaped;
      return escaped.endsWith('/') ? `${escaped}${this.#glob}` : `${escaped}/${this.#glob}`;
    });
  }

  #matcher(full: string): (text: string) => boolean {
    let matcher = this.#matchers.get(full);
    if (matcher === undefined) {
      matcher = picomatch(full, { dot: true, nocase: NOCASE });
      if (this.#matchers.size > 64) this.#matchers.clear(); // working dirs come and go; bound the cache
      this.#matchers.set(full, matcher);
    }
    return matcher;
  }
}
