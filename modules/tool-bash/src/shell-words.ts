/**
 * A small bash lexer that splits a command line into the simple commands bash
 * would run, for policy checks: `;`, `&`, `&&`, `||`, `|` and newlines,
 * subshells, command and process substitutions (also inside double quotes and
 * unquoted here-documents), `bash -c '...'`, `eval ...`, wrappers such as
 * `env`, `command`, `sudo`, `xargs` and `find -exec`. Words come back after
 * quote removal (`s''udo`, `\sudo` and `$'\x73udo'` all read `sudo`); an
 * unquoted `$IFS` separates words. Expansions are not performed: a word that
 * depends on run time is flagged `dynamic`, and a command whose name is
 * dynamic is flagged `opaque`, so a policy can fail closed.
 *
 * This is a guard-rail parser, not a shell: it never runs anything and it
 * does not try to be complete (functions, aliases, `source`d files and
 * programs that run their own commands are out of its reach).
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
  /** Run by a wrapper (`env`, `sudo`, `xargs`, `find -exec`...): `source` is the wrapper's text. */
  wrapped: boolean;
  /** Why this command cannot be checked from its text, when it cannot. */
  opaque?: string;
}

export interface SplitOptions {
  /** Deeper commands are reported as opaque (default 16). */
  maxDepth?: number;
}

/**
 * Split a command line into every simple command it runs, in source order,
 * followed by what each runs in turn (wrapped commands, `bash -c` scripts).
 * Never throws.
 */
export function splitShellCommands(script: string, options: SplitOptions = {}): ShellCommand[] {
  const ctx: Context = {
    out: [],
    maxDepth: options.maxDepth ?? 16,
    ifsAssigned: /\bIFS\+?=/.test(script),
  };
  new Scanner(script, ctx, 0, 'top').parseList(false);
  return ctx.out;
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

/** `/usr/bin/sudo` -> `sudo`. */
export function programName(value: string): string {
  const base = value.slice(value.lastIndexOf('/') + 1);
  return base === '' ? value : base;
}

// ------------------------------------------------------------------ lexer

interface Context {
  out: ShellCommand[];
  maxDepth: number;
  ifsAssigned: boolean;
}

interface Builder {
  words: ShellWord[];
  redirects: ShellRedirect[];
  start: number;
  end: number;
  piped: boolean;
}

interface PendingHeredoc {
  redirect: ShellRedirect;
  delimiter: string;
  stripTabs: boolean;
}

/** Past this depth the parser stops descending at all (stack safety). */
const HARD_DEPTH = 64;
const WORD_BREAK = ' \t\n;&|()<>';
/** Characters with no meaning to the word reader (anything but breaks, quotes, expansions, globs, `=`). */
const PLAIN_RUN = /[^\s;&|()<>\\'"$`*?[\]{}=]+/y;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
/** Reserved words that may precede a command. */
// biome-ignore format: a word list
const LEADING_KEYWORDS = new Set(['!', '{', '}', 'then', 'do', 'else', 'elif', 'if', 'while', 'until', 'fi', 'done', 'esac', 'time', 'coproc']);
/** Words that start a compound command whose words are not a command. */
const NOT_A_COMMAND = new Set(['for', 'select', 'case', '[[']);
/** Words written as `NAME=value` with a plain (unquoted) name: assignments when they lead a command. */
const ASSIGNMENT_WORDS = new WeakSet<ShellWord>();

class Scanner {
  i = 0;
  readonly #src: string;
  readonly #ctx: Context;
  readonly #depth: number;
  readonly #via: string;

  constructor(src: string, ctx: Context, depth: number, via: string) {
    this.#src = src;
    this.#ctx = ctx;
    this.#depth = depth;
    this.#via = via;
  }

  /** Parse commands up to the end, or past the `)` that closes the current level when `nested`. */
  parseList(nested: boolean): void {
    const src = this.#src;
    if (this.#depth > HARD_DEPTH) {
      this.#emitOpaque('commands nested too deeply to check');
      this.i = src.length;
      return;
    }
    let parens = 0;
    let arrayMode = false;
    let pipedNext = false;
    let pendingOp: string | null = null;
    let lastWordEnd = -1;
    const heredocs: PendingHeredoc[] = [];
    const waiting: Builder[] = [];
    let cmd = this.#builder(false);

    let at = 0; // where the token being read starts: a command ends there
    const end = (): void => {
      if (cmd.words.length > 0 || cmd.redirects.length > 0) {
        cmd.end = at;
        if (heredocs.some((doc) => cmd.redirects.includes(doc.redirect))) waiting.push(cmd);
        else this.#finish(cmd);
      }
      pendingOp = null;
      cmd = this.#builder(pipedNext);
      pipedNext = false;
    };

    while (this.i < src.length) {
      at = this.i;
      const c = src[this.i]!;
      if (c === ' ' || c === '\t' || c === '\r') {
        this.i++;
      } else if (c === '\\' && src[this.i + 1] === '\n') {
        this.i += 2;
      } else if (c === '\n') {
        this.i++;
        if (arrayMode) continue;
        end();
        this.#readHeredocs(heredocs);
        for (const waiter of waiting.splice(0)) this.#finish(waiter);
      } else if (c === '#') {
        while (this.i < src.length && src[this.i] !== '\n') this.i++;
      } else if (c === ')') {
        this.i++;
        if (arrayMode) {
          arrayMode = false;
          continue;
        }
        end();
        if (parens === 0 && nested) break;
        if (parens > 0) parens--;
      } else if (c === '(') {
        const last = cmd.words.at(-1);
        this.i++;
        if (
          last &&
          lastWordEnd === this.i - 1 &&
          !last.quoted &&
          /^[A-Za-z_][A-Za-z0-9_]*\+?=$/.test(last.value)
        ) {
          arrayMode = true; // NAME=( ... ): the words are values, not commands
          continue;
        }
        end();
        parens++;
      } else if (c === '<' || c === '>' || c === ';' || c === '&' || c === '|') {
        if ((c === '<' || c === '>') && src[this.i + 1] === '(') {
          lastWordEnd = this.#addWords(cmd, pendingOp, heredocs);
          pendingOp = null;
          continue;
        }
        const op = this.#operator();
        if (op.startsWith('<') || op.startsWith('>') || op.startsWith('&>')) {
          let fd = '';
          const last = cmd.words.at(-1);
          if (last && lastWordEnd === this.i - op.length && !last.quoted && /^\d+$/.test(last.value)) {
            cmd.words.pop();
            fd = last.value;
          }
          if (cmd.start < 0) cmd.start = this.i - op.length;
          pendingOp = fd + op;
        } else {
          end();
          if (op === '|' || op === '|&') cmd.piped = true;
        }
      } else {
        lastWordEnd = this.#addWords(cmd, pendingOp, heredocs, arrayMode);
        pendingOp = null;
      }
    }
    if (this.i >= src.length) {
      at = src.length;
      end();
    }
    for (const waiter of waiting) this.#finish(waiter);
  }

  #builder(piped: boolean): Builder {
    return { words: [], redirects: [], start: -1, end: -1, piped };
  }

  #operator(): string {
    const src = this.#src;
    for (const op of [
      '<<<',
      '<<-',
      ';;&',
      '&>>',
      '&&',
      '||',
      '|&',
      ';;',
      ';&',
      '>>',
      '<<',
      '<&',
      '>&',
      '<>',
      '>|',
      '&>',
    ]) {
      if (src.startsWith(op, this.i)) {
        this.i += op.length;
        return op;
      }
    }
    return src[this.i++]!;
  }

  /** Read one word (maybe several, split by `$IFS`) and add it to the command. Returns where it ended. */
  #addWords(cmd: Builder, pendingOp: string | null, heredocs: PendingHeredoc[], discard = false): number {
    const start = this.i;
    const words = this.#readWord();
    if (cmd.start < 0) cmd.start = start;
    if (discard) return this.i;
    if (pendingOp !== null) {
      const target = words.shift() ?? { value: '', dynamic: false, quoted: false };
      const redirect: ShellRedirect = { op: pendingOp, target };
      cmd.redirects.push(redirect);
      if (isHeredoc(pendingOp) && !pendingOp.endsWith('<<<')) {
        heredocs.push({ redirect, delimiter: target.value, stripTabs: pendingOp.endsWith('<<-') });
      }
    }
    cmd.words.push(...words);
    return this.i;
  }

  #readHeredocs(heredocs: PendingHeredoc[]): void {
    const src = this.#src;
    for (const doc of heredocs.splice(0)) {
      const lines: string[] = [];
      while (this.i < src.length) {
        let nl = src.indexOf('\n', this.i);
        if (nl < 0) nl = src.length;
        const line = src.slice(this.i, nl);
        this.i = Math.min(nl + 1, src.length);
        if ((doc.stripTabs ? line.replace(/^\t+/, '') : line) === doc.delimiter) break;
        lines.push(line);
      }
      const body = lines.join('\n');
      const expands = !doc.redirect.target.quoted;
      doc.redirect.heredoc = { body, expands };
      if (expands) new Scanner(body, this.#ctx, this.#depth, 'heredoc').#readDouble(null);
    }
  }

  /** Read a word at `i`; an unquoted `$IFS` splits it. */
  #readWord(): ShellWord[] {
    const src = this.#src;
    const words: ShellWord[] = [];
    let value = '';
    let dynamic = false;
    let quoted = false;
    let has = false;
    let bracket = false;
    let brace = false;
    let plain = true;
    let assignment = false;
    const flush = (): void => {
      if (has) {
        const word: ShellWord = { value, dynamic, quoted };
        if (assignment) ASSIGNMENT_WORDS.add(word);
        words.push(word);
      }
      value = '';
      dynamic = quoted = has = bracket = brace = assignment = false;
      plain = true;
    };
    while (this.i < src.length) {
      const c = src[this.i]!;
      if ((c === '<' || c === '>') && src[this.i + 1] === '(') {
        const start = this.i;
        this.i += 2;
        this.#nested('substitution');
        value += src.slice(start, this.i);
        dynamic = has = true;
        continue;
      }
      if (WORD_BREAK.includes(c)) break;
      has = true;
      if (c === '=' && plain && !assignment && /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?$/.test(value)) {
        assignment = true;
      } else if (c === '\\' || c === "'" || c === '"' || c === '$' || c === '`') {
        plain = false;
      }
      if (c === '\\') {
        if (src[this.i + 1] === '\n') {
          this.i += 2;
          continue;
        }
        value += src[this.i + 1] ?? '\\';
        quoted = true;
        this.i += 2;
      } else if (c === "'") {
        let close = src.indexOf("'", this.i + 1);
        if (close < 0) close = src.length;
        value += src.slice(this.i + 1, close);
        quoted = true;
        this.i = close + 1;
      } else if (c === '"') {
        this.i++;
        const part = this.#readDouble('"');
        value += part.value;
        dynamic ||= part.dynamic;
        quoted = true;
      } else if (c === '$' && src[this.i + 1] === "'") {
        this.i += 2;
        value += this.#readAnsiC();
        quoted = true;
      } else if (c === '$' && src[this.i + 1] === '"') {
        this.i += 2;
        const part = this.#readDouble('"');
        value += part.value;
        dynamic ||= part.dynamic;
        quoted = true;
      } else if (c === '$' || c === '`') {
        const text = this.#readExpansion();
        if (isIfs(text) && !this.#ctx.ifsAssigned) {
          if (value === '' && !quoted) has = false;
          flush();
          continue;
        }
        value += text;
        dynamic ||= text !== '$';
      } else {
        PLAIN_RUN.lastIndex = this.i;
        if (PLAIN_RUN.test(src)) {
          // A run of ordinary characters at once (long words stay linear and fast).
          value += src.slice(this.i, PLAIN_RUN.lastIndex);
          this.i = PLAIN_RUN.lastIndex;
          continue;
        }
        if (c === '*' || c === '?') dynamic = true;
        else if (c === '[') bracket = true;
        else if (c === ']' && bracket) dynamic = true;
        else if (c === '{' && value !== '') brace = true;
        else if (c === '{') brace = src[this.i + 1] !== undefined && !WORD_BREAK.includes(src[this.i + 1]!);
        else if (c === '}' && brace) dynamic = true;
        value += c;
        this.i++;
      }
    }
    flush();
    return words;
  }

  /**
   * Read double-quoted text up to `terminator` (past it), or to the end for a
   * here-document body (`null`). Substitutions inside are parsed as commands.
   */
  #readDouble(terminator: '"' | null): { value: string; dynamic: boolean } {
    const src = this.#src;
    let value = '';
    let dynamic = false;
    while (this.i < src.length) {
      const c = src[this.i]!;
      if (c === terminator) {
        this.i++;
        break;
      }
      if (c === '\\') {
        const next = src[this.i + 1];
        if (next === '\n') this.i += 2;
        else if (next !== undefined && '$`"\\'.includes(next)) {
          value += next;
          this.i += 2;
        } else {
          value += c;
          this.i++;
        }
      } else if (c === '$' || c === '`') {
        const text = this.#readExpansion();
        value += text;
        dynamic ||= text !== '$';
      } else {
        value += c;
        this.i++;
      }
    }
    return { value, dynamic };
  }

  /** Read `$...`, `${...}`, `$(...)`, `$((...))` or a backtick substitution at `i`; returns its text. */
  #readExpansion(): string {
    const src = this.#src;
    const start = this.i;
    if (src[this.i] === '`') {
      let content = '';
      let j = this.i + 1;
      while (j < src.length && src[j] !== '`') {
        if (src[j] === '\\' && j + 1 < src.length && '`$\\'.includes(src[j + 1]!)) {
          content += src[j + 1];
          j += 2;
        } else content += src[j++];
      }
      this.i = Math.min(j + 1, src.length);
      new Scanner(content, this.#ctx, this.#depth + 1, 'substitution').parseList(false);
      return src.slice(start, this.i);
    }
    const next = src[this.i + 1];
    if (next === '(') {
      this.i += 2;
      this.#nested('substitution');
    } else if (next === '{') {
      this.i += 2;
      let depth = 1;
      while (this.i < src.length && depth > 0) {
        const c = src[this.i]!;
        if (c === '\\') this.i += 2;
        else if (c === "'") {
          const close = src.indexOf("'", this.i + 1);
          this.i = close < 0 ? src.length : close + 1;
        } else if (c === '"') {
          this.i++;
          this.#readDouble('"');
        } else if (c === '$' || c === '`') this.#readExpansion();
        else {
          if (c === '{') depth++;
          else if (c === '}') depth--;
          this.i++;
        }
      }
    } else if (next !== undefined && /[A-Za-z_]/.test(next)) {
      this.i += 2;
      while (this.i < src.length && /[A-Za-z0-9_]/.test(src[this.i]!)) this.i++;
    } else if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
      this.i += 2;
    } else {
      this.i++;
    }
    return src.slice(start, this.i);
  }

  #nested(via: string): void {
    const sub = new Scanner(this.#src, this.#ctx, this.#depth + 1, via);
    sub.i = this.i;
    sub.parseList(true);
    this.i = sub.i;
  }

  /** Decode `$'...'` (the `$'` already read) up to and past the closing quote. */
  #readAnsiC(): string {
    const src = this.#src;
    let out = '';
    while (this.i < src.length && src[this.i] !== "'") {
      const c = src[this.i]!;
      if (c !== '\\') {
        out += c;
        this.i++;
        continue;
      }
      const e = src[this.i + 1] ?? '';
      this.i += 2;
      // biome-ignore format: an escape table
      const simple: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
      const hex = (max: number): number => {
        const m = /^[0-9a-fA-F]+/.exec(src.slice(this.i, this.i + max));
        this.i += m ? m[0].length : 0;
        return m ? Number.parseInt(m[0], 16) : Number.NaN;
      };
      if (e in simple) out += simple[e];
      else if (/[0-7]/.test(e)) {
        const m = /^[0-7]{0,2}/.exec(src.slice(this.i, this.i + 2))![0];
        this.i += m.length;
        out += String.fromCharCode(Number.parseInt(e + m, 8) & 0xff);
      } else if (e === 'x' || e === 'u' || e === 'U') {
        const code = hex(e === 'x' ? 2 : e === 'u' ? 4 : 8);
        out += Number.isNaN(code) || code > 0x10ffff ? `\\${e}` : String.fromCodePoint(code);
      } else if (e === 'c') {
        out += String.fromCharCode((src[this.i++] ?? '@').charCodeAt(0) & 0x1f);
      } else out += `\\${e}`;
    }
    this.i++;
    return out;
  }

  #emitOpaque(reason: string): void {
    this.#ctx.out.push({
      argv: [],
      assignments: [],
      redirects: [],
      source: this.#src.trim(),
      depth: this.#depth,
      via: this.#via,
      piped: false,
      wrapped: false,
      opaque: reason,
    });
  }

  /** Turn a finished builder into a ShellCommand and follow what it runs. */
  #finish(builder: Builder): void {
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
    const source = this.#src.slice(Math.max(0, builder.start), builder.end).trim();
    if (argv.length === 0 && assignments.length === 0 && builder.redirects.length === 0) return;
    const command: ShellCommand = {
      argv,
      assignments,
      redirects: builder.redirects,
      source,
      depth: this.#depth,
      via: this.#via,
      piped: builder.piped,
      wrapped: false,
    };
    this.#classify(command);
    this.#ctx.out.push(command);
    this.#follow(command);
  }

  #classify(command: ShellCommand): void {
    const name = command.argv[0];
    if (command.depth > this.#ctx.maxDepth) command.opaque = 'commands nested too deeply to check';
    else if (name?.dynamic) command.opaque = `the command name is computed at run time (${name.value})`;
  }

  /** Add the commands run by wrappers, shells, `eval` and `find -exec`. */
  #follow(command: ShellCommand): void {
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
      this.#classify(derived);
      this.#ctx.out.push(derived);
      if (derived.depth <= HARD_DEPTH) this.#follow(derived);
    };
    const script = (text: string, via: string): void => {
      new Scanner(text, this.#ctx, command.depth + 1, via).parseList(false);
    };
    const wrapper = WRAPPERS[name];
    if (wrapper) {
      const unwrapped = unwrap(argv, wrapper);
      if (unwrapped.script !== undefined) script(unwrapped.script, name);
      derive(unwrapped.inner);
      return;
    }
    if (SHELLS.has(name)) {
      const shell = shellScript(argv);
      if (shell.script !== undefined) script(shell.script, `${name} -c`);
      else if (shell.readsStdin) {
        const input = command.redirects.findLast(
          (r) => r.op.endsWith('<<') || r.op.endsWith('<<-') || r.op.endsWith('<<<') || r.op.endsWith('<'),
        );
        if (input?.heredoc) script(input.heredoc.body, name);
        else if (input?.op.endsWith('<<<')) script(input.target.value, name);
        else if (command.piped && !input) command.opaque = `${name} reads commands from a pipe`;
      }
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
}

function isHeredoc(op: string): boolean {
  return op.endsWith('<<') || op.endsWith('<<-') || op.endsWith('<<<');
}

function isIfs(text: string): boolean {
  return text === '$IFS' || /^\$\{IFS([^A-Za-z0-9_].*)?\}$/s.test(text);
}

// ------------------------------------------------------ wrappers and shells

interface WrapperSpec {
  /** Options whose value is the next word (or attached: `-uroot`, `--user=root`). */
  value?: readonly string[];
  /** Positional words before the command (`timeout 5 cmd`, `chroot /root cmd`). */
  positionals?: number;
  /** Skip `NAME=value` words (`env`). */
  assignments?: boolean;
  /** Options whose value is a script run by a shell (`su -c`, `env -S`, `flock -c`). */
  script?: readonly string[];
  /** Options after which nothing runs (`command -v`). */
  noRun?: readonly string[];
  /** The operands are joined and run by `sh -c` (`watch`). */
  joins?: boolean;
  /** The operands are not a command (`su user args`). */
  noCommand?: boolean;
}

// biome-ignore format: a table
const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: { value: ['-u', '--unset', '-C', '--chdir'], assignments: true, script: ['-S', '--split-string'] },
  command: { noRun: ['-v', '-V'] },
  builtin: {},
  exec: { value: ['-a'] },
  nohup: {},
  setsid: {},
  time: { value: ['-f', '--format', '-o', '--output'] },
  nice: { value: ['-n', '--adjustment'] },
  ionice: { value: ['-c', '--class', '-n', '--classdata'] },
  timeout: { value: ['-s', '--signal', '-k', '--kill-after'], positionals: 1 },
  stdbuf: { value: ['-i', '--input', '-o', '--output', '-e', '--error'] },
  chroot: { value: ['--userspec', '--groups'], positionals: 1 },
  xargs: { value: ['-I', '-L', '-n', '-P', '-s', '-d', '-E', '-a', '--max-args', '--max-procs', '--delimiter', '--arg-file', '--max-lines', '--max-chars', '--eof'] },
  sudo: { value: ['-u', '--user', '-g', '--group', '-h', '--host', '-p', '--prompt', '-C', '--close-from', '-D', '--chdir', '-r', '--role', '-t', '--type', '-U', '--other-user', '-T', '--command-timeout'] },
  doas: { value: ['-u', '-C'] },
  flock: { value: ['-w', '--timeout', '-E', '--conflict-exit-code'], positionals: 1, script: ['-c', '--command'] },
  unbuffer: {},
  strace: { value: ['-o', '-e', '-p', '-s', '-u', '-E', '-a', '-b', '-I', '-O', '-S', '-X', '-P'] },
  watch: { value: ['-n', '--interval'], joins: true },
  su: { value: ['-s', '--shell', '-g', '--group', '-G', '--supp-group', '-w'], script: ['-c', '--command'], noCommand: true },
  busybox: {},
};

const SHELLS: ReadonlySet<string> = new Set([
  'bash',
  'sh',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'yash',
  'rbash',
]);

function unwrap(argv: readonly ShellWord[], spec: WrapperSpec): { inner: ShellWord[]; script?: string } {
  let k = 1;
  let script: string | undefined;
  let positionals = spec.positionals ?? 0;
  const takesValue = (opt: string, list: readonly string[] | undefined): boolean =>
    list?.includes(opt) ?? false;
  while (k < argv.length) {
    const word = argv[k]!.value;
    if (word === '--') {
      k++;
      break;
    }
    if (word.startsWith('-') && word.length > 1) {
      const [opt, attached] = splitOption(word);
      if (takesValue(opt, spec.noRun)) return { inner: [] };
      const isScript = takesValue(opt, spec.script);
      if (isScript || takesValue(opt, spec.value)) {
        const value = attached ?? argv[k + 1]?.value;
        if (attached === undefined) k++;
        if (isScript && value !== undefined) script = value;
      }
      k++;
      continue;
    }
    if (spec.assignments && ASSIGNMENT.test(word)) {
      k++;
      continue;
    }
    if (spec.noCommand) {
      // su: a user name, then arguments for the shell; `-c` may come after the user.
      for (let j = k; j < argv.length; j++) {
        const [opt, attached] = splitOption(argv[j]!.value);
        if (takesValue(opt, spec.script)) script = attached ?? argv[j + 1]?.value ?? script;
      }
      return { inner: [], script };
    }
    if (positionals > 0) {
      positionals--;
      k++;
      continue;
    }
    break;
  }
  const rest = argv.slice(k);
  if (spec.joins) return { inner: [], script: rest.map((w) => w.value).join(' ') };
  if (spec.noCommand) return { inner: [], script };
  return { inner: rest, script };
}

/** `--user=root` -> [`--user`, `root`]; `-uroot` -> [`-u`, `root`]; `-u` -> [`-u`, undefined]. */
function splitOption(word: string): [string, string | undefined] {
  if (word.startsWith('--')) {
    const eq = word.indexOf('=');
    return eq < 0 ? [word, undefined] : [word.slice(0, eq), word.slice(eq + 1)];
  }
  return word.length > 2 ? [word.slice(0, 2), word.slice(2)] : [word, undefined];
}

/** What a shell invocation runs: a `-c` script, a script file, or standard input. */
function shellScript(argv: readonly ShellWord[]): { script?: string; readsStdin: boolean } {
  let k = 1;
  let command = false;
  let stdin = false;
  while (k < argv.length) {
    const word = argv[k]!.value;
    if (word === '--' || word === '-') {
      k++;
      break;
    }
    if (/^[-+]o$|^[-+]O$|^--(rcfile|init-file)$/.test(word)) {
      k += 2;
      continue;
    }
    if (word.startsWith('--')) {
      k++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(word)) {
      if (word.startsWith('-') && word.includes('c')) command = true;
      if (word.startsWith('-') && word.includes('s')) stdin = true;
      k++;
      continue;
    }
    break;
  }
  if (command) return { script: argv[k]?.value ?? '', readsStdin: false };
  return { readsStdin: stdin || k >= argv.length };
}
