/**
 * What the words of a command may stand for, and which paths matter: a word
 * is read as the strings it can expand to (variables the command line sets,
 * `$HOME`, `$PWD`, `$(echo ...)`), a path is resolved against the possible
 * working directories, normalised (`//`, `.`, `..`, `~`, braces) and judged:
 * `/` or anything directly in it, a system directory, a home directory, or
 * (through a glob) everything in one of those.
 */
import path from 'node:path';
import { printedText, type ShellWord, splitShellCommands } from '@amplifier/process/shell';

/** The strings a word may be; `unknown` when some of what it may be cannot be read from the text. */
export interface Values {
  values: string[];
  unknown: boolean;
}

/** What the command line has set so far, as far as its text says. */
export interface TextState {
  /** Variables assigned by the command line (`X=/`). */
  vars: Map<string, Values>;
  /** The working directories a command may run in (absolute); `unknown` after `cd "$x"`. */
  cwds: Values;
  /** Home directories `~` and `$HOME` may mean. */
  homes: string[];
  /**
   * The environment commands get, when known: a variable the command line
   * does not set reads as its value there, or, when unset, as possibly empty.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Variables the command line may set in ways not followed (`for x in`, `read x`); `'all'` after `source`, `let`... */
  untracked: ReadonlySet<string> | 'all';
  /** Variables holding what a download printed (`C=$(curl …)`). */
  tainted: Set<string>;
}

/** Past this many alternatives a word is `unknown`. */
const MAX_VALUES = 64;

export const UNKNOWN: Values = Object.freeze({ values: [], unknown: true }) as Values;

export function known(...values: string[]): Values {
  return { values, unknown: false };
}

/** The strings `word` may expand to (quote removal done by the lexer; globs and braces kept). */
export function evaluateWord(word: ShellWord, state: TextState): Values {
  if (!word.dynamic) return known(word.value);
  return evaluateText(word.value, state, 0);
}

/** Evaluate expansions in `text` as written (`$X`, `${X:-d}`, `$(echo a)`, backticks). */
export function evaluateText(text: string, state: TextState, depth: number): Values {
  let results: string[] = [''];
  let unknown = false;
  const append = (part: Values): void => {
    unknown ||= part.unknown;
    if (part.values.length === 0) {
      results = [];
      return;
    }
    const next: string[] = [];
    for (const head of results) for (const tail of part.values) next.push(head + tail);
    results = next.length > MAX_VALUES ? [] : next;
    if (next.length > MAX_VALUES) unknown = true;
  };
  let i = 0;
  let literal = '';
  const flush = (): void => {
    if (literal !== '') append(known(literal));
    literal = '';
  };
  while (i < text.length && results.length > 0) {
    const c = text[i]!;
    if (c === '`') {
      const close = text.indexOf('`', i + 1);
      const end = close < 0 ? text.length : close;
      flush();
      append(substitution(text.slice(i + 1, end), state, depth));
      i = end + 1;
    } else if (c === '$' && text[i + 1] === '(' && text[i + 2] === '(') {
      flush();
      append(UNKNOWN); // arithmetic
      i = closing(text, i + 1, '(', ')') + 1;
    } else if (c === '$' && text[i + 1] === '(') {
      const end = closing(text, i + 1, '(', ')');
      flush();
      append(substitution(text.slice(i + 2, end), state, depth));
      i = end + 1;
    } else if ((c === '<' || c === '>') && text[i + 1] === '(') {
      flush();
      append(known('/dev/fd/63')); // a process substitution is a pipe's file name
      i = closing(text, i + 1, '(', ')') + 1;
    } else if (c === '$' && text[i + 1] === '{') {
      const end = closing(text, i + 1, '{', '}');
      flush();
      append(parameter(text.slice(i + 2, end), state, depth));
      i = end + 1;
    } else if (c === '$' && /[A-Za-z_]/.test(text[i + 1] ?? '')) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i + 1))![0];
      flush();
      append(variable(name, state));
      i += 1 + name.length;
    } else if (c === '$' && /[0-9@*#?$!-]/.test(text[i + 1] ?? '')) {
      flush();
      append(UNKNOWN);
      i += 2;
    } else {
      literal += c;
      i++;
    }
  }
  flush();
  return { values: results, unknown: unknown || results.length === 0 };
}

/** Index of the bracket closing the one at `open` (quotes skipped); the end of the text if none. */
function closing(text: string, open: number, opening: string, close: string): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return text.length;
      i = end;
    } else if (c === opening) depth++;
    else if (c === close && --depth === 0) return i;
  }
  return text.length;
}

function variable(name: string, state: TextState): Values {
  const tracked = state.vars.get(name);
  if (tracked !== undefined) return tracked;
  if (name === 'HOME') return state.homes.length > 0 ? known(...state.homes) : UNKNOWN;
  if (name === 'PWD') return state.cwds;
  if (state.env === undefined || state.untracked === 'all' || state.untracked.has(name)) return UNKNOWN;
  const value = Object.hasOwn(state.env, name) ? state.env[name] : undefined;
  // Unset: empty, unless something the text does not show sets it.
  return typeof value === 'string' ? known(value) : { values: [''], unknown: true };
}

/**
 * Variables a command line may set in ways `TextState.vars` does not follow:
 * loop variables, `read`, `mapfile`, `getopts`, `printf -v`; all of them
 * after `let`, `((`, `declare -n` or `source`.
 */
export function untrackedNames(text: string): ReadonlySet<string> | 'all' {
  if (/\blet\b|\(\(|\b(declare|typeset|local)\s+-[a-zA-Z]*n|\bsource\b|(^|[\s;&|(`])\.\s/.test(text))
    return 'all';
  const names = new Set<string>();
  for (const m of text.matchAll(/\b(?:for|select)\s+([A-Za-z_]\w*)/g)) names.add(m[1]!);
  for (const m of text.matchAll(/\bprintf\s+-v\s*([A-Za-z_]\w*)/g)) names.add(m[1]!);
  for (const m of text.matchAll(/\b(?:read|mapfile|readarray|getopts)\b([^;&|\n)]*)/g)) {
    for (const word of m[1]!.split(/\s+/)) if (/^[A-Za-z_]\w*$/.test(word)) names.add(word);
  }
  return names;
}

/** `${NAME}`, `${NAME:-word}` and friends; anything fancier is unknown. */
function parameter(body: string, state: TextState, depth: number): Values {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=?+])(.*))?$/s.exec(body);
  if (m === null) return UNKNOWN;
  const value = variable(m[1]!, state);
  const op = m[2];
  if (op === undefined) return value;
  const word = evaluateText(m[3] ?? '', state, depth);
  if (op.endsWith('+')) return { values: [...word.values, ''], unknown: word.unknown };
  if (op.endsWith('?')) return value;
  // `-`/`=`: the value when set (unknown when not tracked), else the word.
  return { values: [...value.values, ...word.values], unknown: value.unknown || word.unknown };
}

/** `$(...)`: what it prints when its text says (`echo`, `printf`, `pwd`), else unknown. */
function substitution(script: string, state: TextState, depth: number): Values {
  if (depth > 4) return UNKNOWN;
  const commands = splitShellCommands(script).filter((c) => c.depth === 0);
  if (commands.length !== 1) return UNKNOWN;
  const command = commands[0]!;
  const name = command.argv[0]?.value;
  if (name === 'pwd' && command.argv.length === 1) return state.cwds;
  // Evaluate the arguments first (`$(echo $X)`), then read what the command prints.
  const argv: ShellWord[] = [];
  for (const word of command.argv) {
    const values = word.dynamic ? evaluateText(word.value, state, depth + 1) : known(word.value);
    if (values.unknown || values.values.length !== 1) return UNKNOWN;
    argv.push({ value: values.values[0]!, dynamic: false, quoted: true });
  }
  const operands = argv.slice(1).map((w) => w.value);
  if (name === 'dirname' && operands.length === 1) return known(path.posix.dirname(operands[0]!));
  if (name === 'mktemp') return known(mktempPath(operands, state));
  if ((name === 'realpath' || name === 'readlink') && operands.length >= 1) {
    const target = operands.at(-1)!;
    return target.startsWith('/') ? known(normalise(target)) : UNKNOWN;
  }
  const texts = printedText({ ...command, argv });
  if (texts === undefined) return UNKNOWN;
  return known(...texts.map((t) => t.replace(/\n+$/, '')));
}

/** The (new, unique) path `mktemp` prints: its template, in `-p DIR`, `$TMPDIR` or `/tmp`. */
function mktempPath(args: readonly string[], state: TextState): string {
  let dir: string | undefined;
  let template = 'tmp.XXXXXXXXXX';
  for (let k = 0; k < args.length; k++) {
    const arg = args[k]!;
    if (arg === '-p' || arg === '--tmpdir') dir = args[++k];
    else if (arg.startsWith('--tmpdir=')) dir = arg.slice('--tmpdir='.length);
    else if (arg.startsWith('-p') && arg.length > 2) dir = arg.slice(2);
    else if (!arg.startsWith('-')) template = arg;
  }
  if (template.includes('/')) return template;
  const tmpdir = state.env !== undefined && Object.hasOwn(state.env, 'TMPDIR') ? state.env.TMPDIR : undefined;
  return `${dir || tmpdir || '/tmp'}/${template}`;
}

// ------------------------------------------------------------------ paths

/** A path a word may name: absolute and normalised, or relative to a directory that is not known. */
export interface PathCandidate {
  /** Absolute, normalised (`/a/b`); segments may be glob patterns. */
  path: string;
  /** Relative to an unknown working directory (`path` is then the relative path, normalised). */
  relative?: true;
}

const GLOB = /[*?[]/;

/** Every path `text` (one value of a word) may name, given the working directories and homes. */
export function pathCandidates(text: string, state: TextState): { paths: PathCandidate[]; unknown: boolean } {
  const paths: PathCandidate[] = [];
  let unknown = false;
  for (const expanded of expandBraces(text)) {
    let bases: string[];
    let rest: string;
    const tilde = /^~([^/]*)(\/.*)?$/s.exec(expanded);
    if (tilde !== null) {
      rest = tilde[2] ?? '';
      const user = tilde[1]!;
      if (user === '') bases = state.homes.length > 0 ? state.homes : [HOME_PLACEHOLDER];
      else if (user === '+') bases = state.cwds.values;
      else if (user === '-') {
        unknown = true;
        continue;
      } else bases = user === 'root' ? ['/root'] : [`/home/${user}`, `/Users/${user}`];
      if (user === '+' && state.cwds.unknown) unknown = true;
      for (const base of bases) paths.push({ path: normalise(`${base}/${rest}`) });
      continue;
    }
    if (expanded.startsWith('/')) {
      paths.push({ path: normalise(expanded) });
      continue;
    }
    for (const cwd of state.cwds.values) paths.push({ path: normalise(`${cwd}/${expanded}`) });
    if (state.cwds.unknown) paths.push({ path: path.posix.normalize(expanded), relative: true });
  }
  return { paths, unknown };
}

/** The home to judge `~` by when none is known. */
export const HOME_PLACEHOLDER = '/home/~';

/** `/a//b/./c/../` -> `/a/b`; `..` never climbs above `/`. */
export function normalise(p: string): string {
  const out = path.posix.normalize(`/${p}`);
  return out.length > 1 && out.endsWith('/') ? out.slice(0, -1) : out;
}

/** Brace expansion (`/{usr,etc}` -> `/usr`, `/etc`; nested); capped. Unbalanced braces stay as written. */
export function expandBraces(text: string, budget: number = MAX_VALUES): string[] {
  const open = findBrace(text);
  if (open === undefined) return [text];
  const { start, end, parts } = open;
  const out: string[] = [];
  for (const part of parts) {
    for (const tail of expandBraces(text.slice(0, start) + part + text.slice(end + 1), budget)) {
      out.push(tail);
      if (out.length >= budget) return out;
    }
  }
  return out;
}

function findBrace(text: string): { start: number; end: number; parts: string[] } | undefined {
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    const commas: number[] = [];
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        if (commas.length === 0) break;
        const bounds = [start, ...commas, i];
        const parts = bounds.slice(0, -1).map((b, k) => text.slice(b + 1, bounds[k + 1]));
        return { start, end: i, parts };
      } else if (c === ',' && depth === 1) commas.push(i);
    }
  }
  return undefined;
}

// ------------------------------------------------------------- judgement

/** What a path would take with it: the system (`root`) or a home directory (`home`). */
export type PathClass = 'root' | 'home';

/** Second-level directories that hold the system. */
// biome-ignore format: a list
const SYSTEM_DIRS: ReadonlySet<string> = new Set(['/usr/bin', '/usr/sbin', '/usr/lib', '/usr/lib32', '/usr/lib64', '/usr/libexec', '/usr/share', '/usr/include', '/usr/local', '/usr/src', '/var/lib', '/var/log', '/var/spool', '/var/mail', '/etc/ssl', '/etc/ssh', '/etc/systemd', '/etc/pam.d', '/etc/sudoers.d', '/System/Library', '/private/etc', '/private/var']);

/** Top-level directories whose contents are scratch space (`rm -rf /tmp/*` is housekeeping). */
const SCRATCH_DIRS: ReadonlySet<string> = new Set(['/tmp', '/var/tmp', '/dev/shm']);

/** Names found in `/`: a glob there that matches one of them takes the system with it. */
// biome-ignore format: a list
const TOP_LEVEL_NAMES = ['bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib64', 'opt', 'proc', 'root', 'run', 'sbin', 'srv', 'sys', 'tmp', 'usr', 'var', 'mnt', 'media', 'snap', 'nix', 'Users', 'System', 'Library', 'Applications', 'private', 'Volumes', '.', '..'];
/** Names found in a home directory. */
// biome-ignore format: a list
const HOME_NAMES = ['.ssh', '.gnupg', '.config', '.local', '.bashrc', '.profile', '.cache', 'Documents', 'Desktop', 'Downloads', 'projects', 'src', 'code', 'work', 'go', '.', '..'];
/** Names found in a system directory. */
// biome-ignore format: a list
const SYSTEM_NAMES = ['bin', 'lib', 'share', 'local', 'include', 'sbin', 'src', 'log', 'cache', 'passwd', 'hosts', 'fstab', 'ssl', 'systemd', 'apt', 'dpkg', 'python3', '.', '..'];

/**
 * Whether changing or removing `p` (absolute, normalised, glob segments
 * allowed) reaches the system or a home: `/`, a top-level directory, a
 * system directory, a home directory or one of its ancestors, `/home/<x>`, or
 * a glob directly in one of those that matches what such a directory holds.
 */
export function classifyPath(
  p: string,
  homes: readonly string[],
  budget: { left: number } = { left: 256 },
): PathClass | undefined {
  if (--budget.left < 0) return undefined;
  const segments = p.split('/').filter(Boolean);
  const globAt = segments.findIndex((s) => GLOB.test(s));
  if (globAt < 0) return classifyDir(p, homes);
  const dir = `/${segments.slice(0, globAt).join('/')}`;
  const pattern = segments[globAt]!;
  const after = segments.slice(globAt + 1);
  if (after.length > 0) {
    // `/u*/bin`: judge what the glob may stand for, one level at a time.
    for (const name of namesIn(dir, homes)) {
      if (name === '.' || name === '..' || !globMatches(pattern, name)) continue;
      const found = classifyPath(normalise(`${dir}/${name}/${after.join('/')}`), homes, budget);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const dirClass = classifyDir(dir, homes);
  if (dirClass === undefined || SCRATCH_DIRS.has(dir)) return undefined;
  return namesIn(dir, homes).some((name) => globMatches(pattern, name)) ? dirClass : undefined;
}

function namesIn(dir: string, homes: readonly string[]): string[] {
  if (dir === '/') return TOP_LEVEL_NAMES;
  const next = homes
    .filter((h) => h.startsWith(`${dir}/`))
    .map((h) => h.slice(dir.length + 1).split('/')[0]!);
  if (dir === '/home' || dir === '/Users') next.push('user', 'admin', 'ubuntu', 'alice');
  if (isHome(dir, homes)) return [...next, ...HOME_NAMES];
  return [...next, ...SYSTEM_NAMES];
}

function isHome(dir: string, homes: readonly string[]): boolean {
  return homes.includes(dir) || /^\/(home|Users)\/[^/]+$/.test(dir) || dir === HOME_PLACEHOLDER;
}

function classifyDir(dir: string, homes: readonly string[]): PathClass | undefined {
  if (isHome(dir, homes)) return 'home';
  const depth = dir.split('/').filter(Boolean).length;
  if (depth <= 1 || SYSTEM_DIRS.has(dir)) return 'root';
  if (homes.some((h) => h.startsWith(`${dir}/`))) return 'home';
  return undefined;
}

/** bash glob matching of one path segment (`*`, `?`, `[...]`; a leading `.` only matched literally). */
export function globMatches(pattern: string, name: string): boolean {
  if (name.startsWith('.') && !pattern.startsWith('.') && !pattern.startsWith('[')) return false;
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close < 0) re += '\\[';
      else {
        let body = pattern.slice(i + 1, close).replace(/\\/g, '\\\\');
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body}]`;
        i = close;
      }
    } else re += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  try {
    return new RegExp(`^${re}$`, 's').test(name);
  } catch {
    return true;
  }
}
