/**
 * What a simple command prints, when its text says so: `echo` and `printf`
 * with literal arguments, `cat` of a here-document or here-string, and `cat`
 * or `tee` passing on what they read from a pipe. Used to follow text piped
 * into a shell (`echo 'rm -rf /' | sh`) and to read simple substitutions.
 */
import { programName } from './commands.js';
import type { ShellCommand } from './types.js';

/** Past this many pipeline steps (`a | cat | cat | ...`) the text is not followed. */
const MAX_PASS_THROUGH = 32;

/**
 * The text `command` writes to standard output, as the alternatives it may
 * be (`echo 'a\nb'` prints a backslash in bash, a newline in dash), or
 * undefined when it cannot be read from the text (any other program, an
 * argument that depends on run time, an option that changes the text).
 */
export function printedText(command: ShellCommand): string[] | undefined {
  return printed(command, 0);
}

function printed(command: ShellCommand, steps: number): string[] | undefined {
  const [head, ...rest] = command.argv;
  if (head === undefined || head.dynamic || rest.some((w) => w.dynamic)) return undefined;
  const args = rest.map((w) => w.value);
  switch (programName(head.value)) {
    case 'echo':
      return echoText(args);
    case 'printf': {
      const text = printfText(args);
      return text === undefined ? undefined : [text];
    }
    case 'cat':
      if (args.some((a) => a !== '-' && a !== '-u')) return undefined;
      return inputText(command, steps);
    case 'tee':
      if (args.some((a) => a.startsWith('-') && !/^-[aip]+$/.test(a))) return undefined;
      return inputText(command, steps);
    default:
      return undefined;
  }
}

/** What a command reads on standard input: a here-document, a here-string, or its pipe. */
function inputText(command: ShellCommand, steps: number): string[] | undefined {
  const redirect = command.redirects.findLast((r) => /^\d*(<|<<|<<-|<<<|<&|<>)$/.test(r.op));
  if (redirect?.heredoc) return [`${redirect.heredoc.body}\n`];
  if (redirect?.op.endsWith('<<<'))
    return redirect.target.dynamic ? undefined : [`${redirect.target.value}\n`];
  if (redirect !== undefined || !command.piped || command.input === undefined) return undefined;
  if (steps >= MAX_PASS_THROUGH) return undefined;
  return printed(command.input, steps + 1);
}

/** bash's builtin `echo`: leading `-n`, `-e`, `-E` option words, then the words joined by spaces. */
export function echoText(args: readonly string[]): string[] {
  let k = 0;
  let newline = true;
  let escapes = false;
  for (; k < args.length && /^-[neE]+$/.test(args[k]!); k++) {
    for (const c of args[k]!.slice(1)) {
      if (c === 'n') newline = false;
      else escapes = c === 'e';
    }
  }
  const raw = args.slice(k).join(' ');
  const interpreted = decodeEscapes(raw, true);
  const ending = newline && !interpreted.stopped ? '\n' : '';
  if (escapes) return [interpreted.text + ending];
  const plain = raw + (newline ? '\n' : '');
  // A POSIX `sh` echo interprets backslashes without -e: both readings are possible.
  return raw.includes('\\') ? [plain, interpreted.text + ending] : [plain];
}

const CONVERSION = /%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([sbqcdiouxXfFeEgGaA%])/y;

/**
 * bash's builtin `printf FORMAT ARGS...`: escapes in the format, `%s` `%b`
 * `%q` `%c` and the numeric conversions (their argument written as given),
 * the format reused while arguments remain. Undefined for `-v` or a
 * conversion it does not know.
 */
export function printfText(args: readonly string[]): string | undefined {
  let k = 0;
  if (args[k] === '--') k++;
  const format = args[k];
  if (format === undefined || (k === 0 && format.startsWith('-') && format !== '-')) return undefined;
  const values = args.slice(k + 1);
  let out = '';
  let next = 0;
  for (let round = 0; round === 0 || (next < values.length && next > 0); round++) {
    const used = next;
    let i = 0;
    while (i < format.length) {
      const c = format[i]!;
      if (c === '\\') {
        const { text, end } = decodeOne(format, i, false);
        out += text;
        i = end;
      } else if (c === '%') {
        CONVERSION.lastIndex = i;
        const m = CONVERSION.exec(format);
        if (m === null) return undefined;
        i = CONVERSION.lastIndex;
        const kind = m[4]!;
        if (kind === '%') {
          out += '%';
          continue;
        }
        if (m[2] === '*') next++;
        if (m[3] === '*') next++;
        const value = values[next++] ?? '';
        if (kind === 'b') out += decodeEscapes(value, true).text;
        else if (kind === 'c') out += value.slice(0, 1);
        else out += value;
      } else {
        out += c;
        i++;
      }
    }
    if (next === used) break; // the format takes no argument: printed once
  }
  return out;
}

// biome-ignore format: an escape table
const SIMPLE: Readonly<Record<string, string>> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };

/** Decode echo -e / printf %b escapes; `\c` stops the output. */
function decodeEscapes(text: string, echoStyle: boolean): { text: string; stopped: boolean } {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '\\') {
      out += text[i++];
      continue;
    }
    if (text[i + 1] === 'c') return { text: out, stopped: true };
    const { text: piece, end } = decodeOne(text, i, echoStyle);
    out += piece;
    i = end;
  }
  return { text: out, stopped: false };
}

/** One backslash escape at `i`. `echoStyle`: octal is `\0nnn` (echo, %b); otherwise `\nnn` (printf's format). */
function decodeOne(text: string, i: number, echoStyle: boolean): { text: string; end: number } {
  const e = text[i + 1];
  if (e === undefined) return { text: '\\', end: i + 1 };
  if (Object.hasOwn(SIMPLE, e)) return { text: SIMPLE[e]!, end: i + 2 };
  if (e === '"' || e === "'") return { text: echoStyle ? `\\${e}` : e, end: i + 2 };
  const octal = echoStyle ? /^0[0-7]{0,3}/.exec(text.slice(i + 1)) : /^[0-7]{1,3}/.exec(text.slice(i + 1));
  if (octal !== null) {
    const digits = echoStyle ? octal[0].slice(1) : octal[0];
    return {
      text: String.fromCharCode(Number.parseInt(digits || '0', 8) & 0xff),
      end: i + 1 + octal[0].length,
    };
  }
  const hex = /^x([0-9a-fA-F]{1,2})/.exec(text.slice(i + 1));
  if (hex !== null)
    return { text: String.fromCharCode(Number.parseInt(hex[1]!, 16)), end: i + 1 + hex[0].length };
  return { text: `\\${e}`, end: i + 2 };
}
