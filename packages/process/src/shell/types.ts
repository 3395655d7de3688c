/**
 * What the shell lexer returns (words, redirections, simple commands) and the
 * state its parts share while they scan one command line.
 */

/** One word after quote removal. Expansions are kept as written (`$HOME`, `$(date)`). */
export interface ShellWord {
  value: string;
  /** Depends on run time: parameter expansion, command substitution, glob or brace characters. */
  dynamic: boolean;
  /** Some part of the word was quoted or escaped. */
  quoted: boolean;
}

export interface ShellRedirect {
  /** The operator with its file descriptor, as written: `>`, `2>`, `&>>`, `<<-`. */
  op: string;
  target: ShellWord;
  /** Body of a here-document (`<<`, `<<-`); `expands` is false when the delimiter was quoted. */
  heredoc?: { body: string; expands: boolean };
}

/** A simple command, found at any depth of the command line. */
export interface ShellCommand {
  /** The command and its arguments: leading assignments, redirections and reserved words removed. */
  argv: ShellWord[];
  /** Leading `NAME=value` words. */
  assignments: ShellWord[];
  redirects: ShellRedirect[];
  /** The text the command came from, trimmed (a wrapped command shares its wrapper's text). */
  source: string;
  /** 0 at top level; each substitution, `bash -c`, `eval` or wrapper adds 1. */
  depth: number;
  /** How the command was reached: `top`, `substitution`, `heredoc`, `bash -c`, `eval`, a wrapper's name... */
  via: string;
  /** Reads standard input from a pipe (`... | bash`). */
  piped: boolean;
  /**
   * The simple command whose output this one reads through a pipe (`a | b`:
   * b's `input` is a; a wrapped command shares its wrapper's). Undefined when
   * not piped, or when what writes to the pipe is not a simple command
   * (`(a; b) | c`, `{ a; } | c`, `done | c`).
   */
  input?: ShellCommand;
  /** Run by a wrapper (`env`, `sudo`, `xargs`, `find -exec`...): `source` is the wrapper's text. */
  wrapped: boolean;
  /** For a wrapper (`sudo`, `env`, `busybox`, `xargs`...): the command it runs. */
  inner?: ShellCommand;
  /** Why this command cannot be checked from its text, when it cannot. */
  opaque?: string;
}

export interface SplitOptions {
  /** Deeper commands are reported as opaque (default 16). */
  maxDepth?: number;
}

/** Every command of a command line, and whether the line is complete shell syntax. */
export interface ShellParse {
  commands: ShellCommand[];
  /**
   * Set when the text is not complete shell syntax (bash would refuse it, or
   * read it differently): an unterminated quote, backquote, `$(`, `${` or `(`.
   * The commands are then the lexer's best reading, not bash's.
   */
  syntaxError?: string;
}

/** Shared by every scanner of one command line (nested ones included). @internal */
export interface ScanContext {
  out: ShellCommand[];
  maxDepth: number;
  ifsAssigned: boolean;
  /** The first syntax problem found. */
  syntaxError: string | undefined;
  /** Parse `text` as a script run at `depth` (a `bash -c` script, an `eval`, a wrapper's script). */
  script(text: string, depth: number, via: string): void;
  /** Parse `text` on its own (nothing is added to `out`): to read what a substitution prints. */
  probe(text: string): ShellCommand[];
}

/** The words and redirections of a simple command being read. @internal */
export interface CommandBuilder {
  words: ShellWord[];
  redirects: ShellRedirect[];
  start: number;
  end: number;
  piped: boolean;
  /** The builder of the command writing to this one's pipe. */
  input?: CommandBuilder;
  /** The command made from this builder, once finished (none for reserved words alone). */
  command?: ShellCommand;
}
