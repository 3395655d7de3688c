/**
 * How a rule's command pattern meets a compound shell command line. The line
 * is split by `@amplifier/process/shell` into every simple command bash would run
 * (lists, pipelines, substitutions, subshells, `bash -c`, `eval`, wrappers,
 * `find -exec`); an allow pattern must cover every one of them, a deny or ask
 * pattern needs one. A line that cannot be read from its text is never
 * covered by an allow pattern or a session grant.
 */
import {
  commandLine,
  fullCommandText,
  parseShellCommands,
  type ShellCommand,
} from '@amplifier/process/shell';

/** A command line, split once per call. */
export interface ShellView {
  raw: string;
  commands: ShellCommand[];
  /** Why an allow pattern cannot cover this line, if it cannot (syntax, run-time names, nesting). */
  unreadable: string | undefined;
}

export function shellView(raw: string): ShellView {
  const parsed = parseShellCommands(raw);
  let unreadable = parsed.syntaxError;
  if (unreadable === undefined) unreadable = parsed.commands.find((c) => c.opaque !== undefined)?.opaque;
  if (unreadable === undefined && parsed.commands.length === 0) unreadable = 'no command';
  return { raw, commands: parsed.commands, unreadable };
}

/** Redirection targets that write nothing a person would care about. */
const HARMLESS_TARGETS: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** True when the command writes a file through a redirection (`> f`, `>> f`, `&> f`, `<> f`, `>& f`). */
export function writesFile(command: ShellCommand): boolean {
  return command.redirects.some(({ op, target }) => {
    const bare = op.replace(/^\d+/, '');
    if (bare.startsWith('<') && bare !== '<>') return false; // input, here-documents
    if ((bare === '>&' || bare === '<&') && /^(\d+-?|-)$/.test(target.value)) return false; // fd dup
    return target.dynamic || !HARMLESS_TARGETS.has(target.value);
  });
}

/**
 * The text an allow pattern is matched against: assignments, the program as
 * written (`/tmp/x/ls` is not `ls`), arguments and redirections, quotes removed.
 */
export function allowText(command: ShellCommand): string {
  return fullCommandText(command);
}

/**
 * Does `test` allow the whole line? Every simple command must match, none may
 * write a file through a redirection, and the line must be readable.
 */
export function coversAll(view: ShellView, test: (text: string) => boolean): boolean {
  if (view.unreadable !== undefined) return false;
  return view.commands.every((c) => !writesFile(c) && test(allowText(c)));
}

/**
 * Does `test` hit any part of the line? Tried on the raw text and, for every
 * simple command, on its source text, its words as written, its words with the
 * program's directory dropped (`/bin/rm` reads `rm`) and its full text.
 */
export function hitsAny(view: ShellView, test: (text: string) => boolean): boolean {
  if (test(view.raw)) return true;
  return view.commands.some((c) => {
    const written = c.argv.map((w) => w.value).join(' ');
    return test(commandLine(c)) || test(written) || test(fullCommandText(c)) || test(c.source);
  });
}

/** A subcommand-like second word: `status`, `run`, `test`, `build.sh` (not an option, path or expansion). */
const SUBCOMMAND = /^[A-Za-z][A-Za-z0-9._:-]*$/;

/**
 * The prefixes a session grant records for this line: for every simple
 * command, its program as written, plus its first argument when that looks
 * like a subcommand (`git status`, `npm run`, `rm`). Undefined when the line
 * cannot be granted by prefix (unreadable, assignments, file redirections).
 */
export function commandPrefixes(view: ShellView): string[][] | undefined {
  if (view.unreadable !== undefined) return undefined;
  const out = new Map<string, string[]>();
  for (const c of view.commands) {
    if (c.assignments.length > 0 || writesFile(c) || c.argv.length === 0) return undefined;
    const prefix = prefixOf(c);
    out.set(prefix.join('\u0000'), prefix);
  }
  return [...out.values()];
}

function prefixOf(command: ShellCommand): string[] {
  const [program, first] = command.argv;
  const words = [program!.value];
  if (first !== undefined && !first.dynamic && SUBCOMMAND.test(first.value)) words.push(first.value);
  return words;
}

/** Is every simple command of the line covered by one of the granted prefixes (word by word)? */
export function prefixesCover(view: ShellView, granted: readonly (readonly string[])[]): boolean {
  if (granted.length === 0 || commandPrefixes(view) === undefined) return false;
  return view.commands.every((c) =>
    granted.some((prefix) =>
      prefix.every((word, k) => c.argv[k] !== undefined && c.argv[k]!.value === word && !c.argv[k]!.dynamic),
    ),
  );
}
