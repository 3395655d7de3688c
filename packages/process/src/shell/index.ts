/**
 * @amplifier/process/shell: a small bash lexer that splits a command line into
 * the simple commands bash would run, for policy checks (tool-bash's safety
 * validator, hooks-approval's rules): `;`, `&`, `&&`, `||`, `|` and newlines,
 * subshells, command and process substitutions (also inside double quotes and
 * unquoted here-documents), `bash -c '...'`, `eval ...`, wrappers such as
 * `env`, `command`, `sudo`, `xargs` and `find -exec`. Words come back after
 * quote removal (`s''udo`, `\sudo` and `$'\x73udo'` all read `sudo`); an
 * unquoted `$IFS` separates words. Expansions are not performed: a word that
 * depends on run time is flagged `dynamic`, and a command whose name is
 * dynamic is flagged `opaque`, so a policy can fail closed.
 *
 * Each command knows the simple command writing to its pipe (`input`), and
 * text a shell reads from `echo`/`printf`/`cat <<EOF` through a pipe or a
 * process substitution (`echo 'rm -rf /' | sh`, `bash <(echo ...)`) is read
 * as the script it is. `parseOptions` reads a command's flags the way GNU
 * getopt does (`-rf`, `-r -f`, `--recursive`, `--rec`, `--`), and
 * `printedText` says what `echo`, `printf` or `cat` print.
 *
 * This is a guard-rail parser, not a shell: it never runs anything and it
 * does not try to be complete (functions, aliases, `source`d files and
 * programs that run their own commands are out of its reach).
 */
import { programName } from './commands.js';
import { Scanner } from './lexer.js';
import type { ScanContext, ShellCommand, ShellParse, SplitOptions } from './types.js';

export { programName } from './commands.js';
export type { OptionSpec, ParsedOptions } from './options.js';
export { parseOptions } from './options.js';
export { printedText } from './printed.js';
export type { ShellCommand, ShellParse, ShellRedirect, ShellWord, SplitOptions } from './types.js';
export { SHELLS, STDIN_PATHS, shellScript } from './wrappers.js';

/**
 * Every simple command of a command line (see `splitShellCommands`), and the
 * first syntax problem when the text is not complete shell syntax (an
 * unterminated quote, backquote, `$(`, `${` or `(`). Never throws.
 */
export function parseShellCommands(script: string, options: SplitOptions = {}): ShellParse {
  const ctx: ScanContext = {
    out: [],
    maxDepth: options.maxDepth ?? 16,
    ifsAssigned: /\bIFS\+?=/.test(script),
    syntaxError: undefined,
    script: (text, depth, via) => new Scanner(text, ctx, depth, via).parseList(false),
    probe: (text) => parseShellCommands(text, options).commands,
  };
  ctx.script(script, 0, 'top');
  return ctx.syntaxError === undefined
    ? { commands: ctx.out }
    : { commands: ctx.out, syntaxError: ctx.syntaxError };
}

/**
 * Split a command line into every simple command it runs, in source order,
 * followed by what each runs in turn (wrapped commands, `bash -c` scripts).
 * Never throws.
 */
export function splitShellCommands(script: string, options: SplitOptions = {}): ShellCommand[] {
  return parseShellCommands(script, options).commands;
}

/** The command as one line (`argv` joined by spaces, the program's directory dropped). */
export function commandLine(command: ShellCommand): string {
  return command.argv.map((word, index) => (index === 0 ? programName(word.value) : word.value)).join(' ');
}

/** Assignments, arguments and redirections as one line, quotes removed (`echo hi > /dev/tty`). */
export function fullCommandText(command: ShellCommand): string {
  return [
    ...command.assignments.map((word) => word.value),
    ...command.argv.map((word) => word.value),
    ...command.redirects.map((redirect) => `${redirect.op} ${redirect.target.value}`),
  ].join(' ');
}
