/**
 * The scanner: reads a command line into simple commands (lists, pipelines,
 * subshells, here-documents), words after quote removal, and expansions whose
 * commands (substitutions) are scanned in turn. Each finished command goes to
 * `finishCommand`. It notes the first syntax problem (an unterminated quote,
 * `$(`, `${` or `(`) in the shared context and reads on as best it can.
 */
import { decodeAnsiC } from './ansi-c.js';
import {
  ASSIGNMENT_WORDS,
  type CommandOrigin,
  finishCommand,
  HARD_DEPTH,
  opaqueCommand,
} from './commands.js';
import type { CommandBuilder, ScanContext, ShellRedirect, ShellWord } from './types.js';

interface PendingHeredoc {
  redirect: ShellRedirect;
  delimiter: string;
  stripTabs: boolean;
}

const WORD_BREAK = ' \t\n;&|()<>';
/** Words that open and close compound commands: what reads a pipe into one is read by every command inside. */
const GROUP_OPENERS: ReadonlySet<string> = new Set(['{', 'if', 'while', 'until', 'for', 'select', 'case']);
const GROUP_CLOSERS: ReadonlySet<string> = new Set(['}', 'fi', 'done', 'esac']);
/** Characters with no meaning to the word reader (anything but breaks, quotes, expansions, globs, `=`). */
const PLAIN_RUN = /[^\s;&|()<>\\'"$`*?[\]{}=]+/y;
/** Multi-character operators, longest first. */
// biome-ignore format: a list
const OPERATORS = ['<<<', '<<-', ';;&', '&>>', '&&', '||', '|&', ';;', ';&', '>>', '<<', '<&', '>&', '<>', '>|', '&>'];

export class Scanner {
  i = 0;
  readonly #src: string;
  readonly #ctx: ScanContext;
  readonly #origin: CommandOrigin;

  constructor(src: string, ctx: ScanContext, depth: number, via: string) {
    this.#src = src;
    this.#ctx = ctx;
    this.#origin = { src, depth, via };
  }

  #syntax(problem: string): void {
    this.#ctx.syntaxError ??= problem;
  }

  /** Parse commands up to the end, or past the `)` that closes the current level when `nested`. */
  parseList(nested: boolean): void {
    const src = this.#src;
    if (this.#origin.depth > HARD_DEPTH) {
      this.#ctx.out.push(opaqueCommand(this.#origin, 'commands nested too deeply to check'));
      this.i = src.length;
      return;
    }
    let parens = 0;
    let closed = false;
    let arrayMode = false;
    // Compound commands open on this level; one that reads a pipe hands it to every command inside.
    const groups: (CommandBuilder | undefined)[] = [];
    const pipedGroup = (): CommandBuilder | undefined => groups.findLast((g) => g !== undefined);
    const intoGroup = (): void => {
      const group = pipedGroup();
      if (group !== undefined && !cmd.piped) {
        cmd.piped = true;
        cmd.input = group.input;
      }
    };
    // What each open compound command is (`case`, `if`, `(`...): after `;;` in a `case`, a pattern follows.
    const kinds: string[] = [];
    // Reading a `case` pattern (after `in`, `;;`, `;&` or `;;&`, up to its `)`): words, not a command.
    let casePattern = false;
    let pipedNext = false;
    let pendingOp: string | null = null;
    let lastWordEnd = -1;
    const heredocs: PendingHeredoc[] = [];
    const waiting: CommandBuilder[] = [];
    let cmd = builder(false);
    let ended: CommandBuilder | undefined; // the simple command the last `end()` closed

    let at = 0; // where the token being read starts: a command ends there
    const end = (): void => {
      ended = undefined;
      if (cmd.words.length > 0 || cmd.redirects.length > 0) {
        cmd.end = at;
        // A command waits for its here-documents, and for the command writing to its pipe.
        const producerWaits = cmd.input !== undefined && waiting.includes(cmd.input);
        if (producerWaits || heredocs.some((doc) => cmd.redirects.includes(doc.redirect))) waiting.push(cmd);
        else finishCommand(cmd, this.#origin, this.#ctx);
        ended = cmd;
      }
      pendingOp = null;
      cmd = builder(pipedNext);
      pipedNext = false;
      intoGroup();
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
        // A pattern ends at its `)` on the same line: words left open are read as a command (fail closed).
        if (casePattern && cmd.words.length > 0) casePattern = false;
        end();
        this.#readHeredocs(heredocs);
        for (const waiter of waiting.splice(0)) finishCommand(waiter, this.#origin, this.#ctx);
      } else if (c === '#') {
        while (this.i < src.length && src[this.i] !== '\n') this.i++;
      } else if (c === ')') {
        this.i++;
        if (arrayMode) {
          arrayMode = false;
          continue;
        }
        if (casePattern) {
          // The pattern's words match text, they run nothing (their substitutions were read as commands).
          casePattern = false;
          cmd = builder(false);
          intoGroup();
          continue;
        }
        end();
        if (parens === 0 && nested) {
          closed = true;
          break;
        }
        if (parens > 0) {
          parens--;
          groups.pop();
          kinds.pop();
        }
      } else if (c === '(') {
        const last = cmd.words.at(-1);
        this.i++;
        if (casePattern && cmd.words.length === 0) continue; // `(pattern)`: the optional opening paren
        if (
          last &&
          lastWordEnd === this.i - 1 &&
          !last.quoted &&
          /^[A-Za-z_][A-Za-z0-9_]*\+?=$/.test(last.value)
        ) {
          arrayMode = true; // NAME=( ... ): the words are values, not commands
          continue;
        }
        const pipedInto = cmd.words.length === 0 && cmd.redirects.length === 0 && cmd.piped ? cmd : undefined;
        end();
        parens++;
        groups.push(pipedInto);
        kinds.push('(');
        intoGroup();
      } else if (c === '<' || c === '>' || c === ';' || c === '&' || c === '|') {
        if ((c === '<' || c === '>') && src[this.i + 1] === '(') {
          lastWordEnd = this.#addWords(cmd, pendingOp, heredocs);
          pendingOp = null;
          continue;
        }
        const op = this.#operator();
        if (casePattern && op === '|') continue; // `a|b)`: alternatives of one pattern
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
          if (op === '|' || op === '|&') {
            cmd.piped = true;
            cmd.input = ended;
          }
          if ((op === ';;' || op === ';&' || op === ';;&') && kinds.at(-1) === 'case') casePattern = true;
        }
      } else {
        const first = cmd.words.length === 0 && pendingOp === null && !arrayMode;
        lastWordEnd = this.#addWords(cmd, pendingOp, heredocs, arrayMode);
        pendingOp = null;
        const word = cmd.words[0];
        if (casePattern) {
          // `esac` where a pattern could start ends the case; anything else is pattern text.
          if (!(first && word !== undefined && !word.quoted && word.value === 'esac')) continue;
          casePattern = false;
        }
        if (first && word !== undefined && !word.quoted) {
          if (GROUP_OPENERS.has(word.value)) {
            groups.push(cmd.piped ? cmd : undefined);
            kinds.push(word.value);
          } else if (GROUP_CLOSERS.has(word.value)) {
            groups.pop();
            kinds.pop();
          }
        }
        const keyword = cmd.words[2];
        if (
          word?.value === 'case' &&
          !word.quoted &&
          keyword?.value === 'in' &&
          !keyword.quoted &&
          cmd.words.length === 3 &&
          kinds.at(-1) === 'case'
        ) {
          // `case WORD in`: what follows, up to `)`, is the first pattern.
          end();
          casePattern = true;
        }
      }
    }
    if (this.i >= src.length) {
      at = src.length;
      casePattern = false; // an unclosed pattern's words are read as a command (fail closed)
      end();
    }
    for (const waiter of waiting) finishCommand(waiter, this.#origin, this.#ctx);
    if (nested && !closed) this.#syntax('unterminated command or process substitution');
    else if (parens > 0 || arrayMode) this.#syntax('unterminated ( subshell');
  }

  #operator(): string {
    const src = this.#src;
    for (const op of OPERATORS) {
      if (src.startsWith(op, this.i)) {
        this.i += op.length;
        return op;
      }
    }
    return src[this.i++]!;
  }

  /** Read one word (maybe several, split by `$IFS`) and add it to the command. Returns where it ended. */
  #addWords(
    cmd: CommandBuilder,
    pendingOp: string | null,
    heredocs: PendingHeredoc[],
    discard = false,
  ): number {
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
      if (expands) {
        new Scanner(body, this.#ctx, this.#origin.depth, 'heredoc').#readDouble(null);
      }
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
        if (close < 0) {
          this.#syntax('unterminated single quote');
          close = src.length;
        }
        value += src.slice(this.i + 1, close);
        quoted = true;
        this.i = close + 1;
      } else if (c === '"' || (c === '$' && src[this.i + 1] === '"')) {
        this.i += c === '"' ? 1 : 2;
        const part = this.#readDouble('"');
        value += part.value;
        dynamic ||= part.dynamic;
        quoted = true;
      } else if (c === '$' && src[this.i + 1] === "'") {
        const decoded = decodeAnsiC(src, this.i + 2);
        if (!decoded.terminated) this.#syntax("unterminated $'...' quote");
        value += decoded.value;
        this.i = decoded.end;
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
    let terminated = terminator === null;
    while (this.i < src.length) {
      const c = src[this.i]!;
      if (c === terminator) {
        this.i++;
        terminated = true;
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
    if (!terminated) this.#syntax('unterminated double quote');
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
      if (j >= src.length) this.#syntax('unterminated backquote');
      this.i = Math.min(j + 1, src.length);
      this.#ctx.script(content, this.#origin.depth + 1, 'substitution');
      return src.slice(start, this.i);
    }
    const next = src[this.i + 1];
    if (next === '(' && src[this.i + 2] === '(' && this.#readArithmetic()) {
      return src.slice(start, this.i);
    }
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
          if (close < 0) this.#syntax('unterminated single quote');
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
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text
      if (depth > 0) this.#syntax('unterminated ${...}');
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

  /**
   * `$((...))` at `i`, an arithmetic expansion: no command of its own, but the
   * substitutions inside it (`$(( $(id -u) + 1 ))`) run and are read as such.
   * True when it ends with `))` at its depth; false (nothing consumed) when it
   * does not (`$((cmd) )` is a command substitution of a subshell, as bash
   * reads it when the arithmetic does not parse).
   */
  #readArithmetic(): boolean {
    const src = this.#src;
    const start = this.i;
    const commands = this.#ctx.out.length;
    const syntaxError = this.#ctx.syntaxError;
    let depth = 0;
    let j = start + 3;
    while (j < src.length) {
      const c = src[j]!;
      if (c === '$' || c === '`') {
        this.i = j;
        this.#readExpansion();
        j = this.i;
        continue;
      }
      if (c === "'" || c === '"' || c === '\\') break;
      if (c === '(') depth++;
      else if (c === ')') {
        if (depth > 0) depth--;
        else {
          if (src[j + 1] !== ')') break;
          this.i = j + 2;
          return true;
        }
      }
      j++;
    }
    // Not arithmetic: read again as a substitution, which finds again what was read inside.
    this.#ctx.out.length = commands;
    this.#ctx.syntaxError = syntaxError;
    this.i = start;
    return false;
  }

  #nested(via: string): void {
    const sub = new Scanner(this.#src, this.#ctx, this.#origin.depth + 1, via);
    sub.i = this.i;
    sub.parseList(true);
    this.i = sub.i;
  }
}

function builder(piped: boolean): CommandBuilder {
  return { words: [], redirects: [], start: -1, end: -1, piped };
}

function isHeredoc(op: string): boolean {
  return op.endsWith('<<') || op.endsWith('<<-') || op.endsWith('<<<');
}

function isIfs(text: string): boolean {
  return text === '$IFS' || /^\$\{IFS([^A-Za-z0-9_].*)?\}$/s.test(text);
}
