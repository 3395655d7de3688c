/**
 * From the words of a simple command to a ShellCommand: leading reserved
 * words and assignments set apart, commands that cannot be checked flagged,
 * and what the command runs in turn (wrapped commands, shell scripts, `eval`,
 * `find -exec`) added after it.
 */
import { printedText } from './printed.js';
import type { CommandBuilder, ScanContext, ShellCommand, ShellWord } from './types.js';
import { SHELLS, STDIN_PATHS, shellScript, unwrap, WRAPPERS } from './wrappers.js';

/** Past this depth the parser stops descending at all (stack safety). */
export const HARD_DEPTH = 64;

/** Reserved words that may precede a command. */
// biome-ignore format: a word list
const LEADING_KEYWORDS = new Set(['!', '{', '}', 'then', 'do', 'else', 'elif', 'if', 'while', 'until', 'fi', 'done', 'esac', 'time', 'coproc']);
/** Words that start a compound command whose words are not a command. */
const NOT_A_COMMAND = new Set(['for', 'select', 'case', '[[']);
/** Words written as `NAME=value` with a plain (unquoted) name: assignments when they lead a command. */
export const ASSIGNMENT_WORDS: WeakSet<ShellWord> = new WeakSet<ShellWord>();

/** `/usr/bin/sudo` -> `sudo`. */
export function programName(value: string): string {
  const base = value.slice(value.lastIndexOf('/') + 1);
  return base === '' ? value : base;
}

/** Where a command was found: its scanner's text, depth and route. */
export interface CommandOrigin {
  src: string;
  depth: number;
  via: string;
}

/** Turn a finished builder into a ShellCommand, record it, and follow what it runs. */
export function finishCommand(builder: CommandBuilder, origin: CommandOrigin, ctx: ScanContext): void {
  const words = builder.words;
  let k = 0;
  const assignments: ShellWord[] = [];
  for (;;) {
    const word = words[k];
    if (word === undefined) break;
    if (!word.quoted && LEADING_KEYWORDS.has(word.value)) {
      k++;
      if (word.value === 'time') while (words[k]?.value.startsWith('-')) k++;
    } else if (!word.quoted && word.value === 'function') {
      k += 2; // function NAME { ... }: the body follows
    } else if (ASSIGNMENT_WORDS.has(word)) {
      assignments.push(word);
      k++;
    } else break;
  }
  const first = words[k];
  const argv = first && !first.quoted && NOT_A_COMMAND.has(first.value) ? [] : words.slice(k);
  const source = origin.src.slice(Math.max(0, builder.start), builder.end).trim();
  if (argv.length === 0 && assignments.length === 0 && builder.redirects.length === 0) return;
  const command: ShellCommand = {
    argv,
    assignments,
    redirects: builder.redirects,
    source,
    depth: origin.depth,
    via: origin.via,
    piped: builder.piped,
    wrapped: false,
  };
  const input = builder.input?.command;
  if (input !== undefined) command.input = input;
  builder.command = command;
  classify(command, ctx);
  ctx.out.push(command);
  follow(command, ctx);
}

/** A command standing for text that could not be read (nested too deeply). */
export function opaqueCommand(origin: CommandOrigin, reason: string): ShellCommand {
  return {
    argv: [],
    assignments: [],
    redirects: [],
    source: origin.src.trim(),
    depth: origin.depth,
    via: origin.via,
    piped: false,
    wrapped: false,
    opaque: reason,
  };
}

function classify(command: ShellCommand, ctx: ScanContext): void {
  const name = command.argv[0];
  if (command.depth > ctx.maxDepth) command.opaque = 'commands nested too deeply to check';
  else if (name?.dynamic) command.opaque = `the command name is computed at run time (${name.value})`;
}

/** Add the commands run by wrappers, shells, `eval` and `find -exec`. */
function follow(command: ShellCommand, ctx: ScanContext): void {
  const argv = command.argv;
  const head = argv[0];
  if (head === undefined || head.dynamic) return;
  const name = programName(head.value);
  const derive = (inner: ShellWord[]): void => {
    if (inner.length === 0) return;
    const derived: ShellCommand = {
      argv: inner,
      assignments: [],
      redirects: [],
      source: command.source,
      depth: command.depth + 1,
      via: name,
      piped: command.piped,
      wrapped: true,
    };
    if (command.input !== undefined) derived.input = command.input;
    command.inner ??= derived;
    classify(derived, ctx);
    ctx.out.push(derived);
    if (derived.depth <= HARD_DEPTH) follow(derived, ctx);
  };
  const script = (text: string, via: string): void => ctx.script(text, command.depth + 1, via);
  const wrapper = WRAPPERS[name];
  if (wrapper) {
    const unwrapped = unwrap(argv, wrapper);
    if (unwrapped.script !== undefined) script(unwrapped.script, name);
    derive(unwrapped.inner);
    return;
  }
  // What a shell (or `source`) runs when its script is another command's output.
  const runOutputOf = (word: ShellWord): void => {
    const texts = substitutionOutput(word, ctx);
    if (texts === undefined) command.opaque = `${name} runs the output of a command (${word.value})`;
    else for (const text of texts) script(text, name);
  };
  const runStdin = (): void => {
    const input = command.redirects.findLast((r) => /^\d*(<|<<|<<-|<<<|<>)$/.test(r.op));
    if (input?.heredoc) script(input.heredoc.body, name);
    else if (input?.op.endsWith('<<<')) script(input.target.value, name);
    else if (input !== undefined && isProcessSubstitution(input.target)) runOutputOf(input.target);
    else if (input === undefined && command.piped) {
      const texts = command.input === undefined ? undefined : printedText(command.input);
      if (texts === undefined) command.opaque = `${name} reads commands from a pipe`;
      else for (const text of texts) script(text, name);
    }
  };
  if (SHELLS.has(name)) {
    const shell = shellScript(argv);
    if (shell.script !== undefined) script(shell.script, `${name} -c`);
    else if (shell.file !== undefined && isProcessSubstitution(shell.file)) runOutputOf(shell.file);
    else if (shell.readsStdin) runStdin();
    return;
  }
  if (name === 'source' || name === '.') {
    const file = argv[1];
    if (file === undefined) return;
    if (isProcessSubstitution(file)) runOutputOf(file);
    else if (!file.dynamic && STDIN_PATHS.has(file.value)) runStdin();
    return;
  }
  if (name === 'eval')
    script(
      argv
        .slice(1)
        .map((w) => w.value)
        .join(' '),
      'eval',
    );
  else if (name === 'find') {
    for (let k = 1; k < argv.length; k++) {
      if (!/^-(exec|execdir|ok|okdir)$/.test(argv[k]!.value)) continue;
      const start = k + 1;
      while (k < argv.length && argv[k]!.value !== ';' && argv[k]!.value !== '+') k++;
      derive(argv.slice(start, k));
    }
  }
}

/** `<(...)` as a whole word: the file a process substitution gives. */
function isProcessSubstitution(word: ShellWord): boolean {
  return word.value.startsWith('<(') && word.value.endsWith(')');
}

/** What the command in `<(...)` prints, when its text says (`<(echo ...)`); undefined otherwise. */
function substitutionOutput(word: ShellWord, ctx: ScanContext): string[] | undefined {
  const inner = ctx.probe(word.value.slice(2, -1)).filter((c) => c.depth === 0);
  return inner.length === 1 ? printedText(inner[0]!) : undefined;
}
