/**
 * Reading a command's options the way GNU `getopt_long` does, so a policy
 * decides on what a command does rather than on how its flags are spelled:
 * clustered (`-rf`), separate (`-r -f`), long (`--recursive`), abbreviated
 * (`--rec`), repeated, after the operands (`rm / -rf`), and `--` ending them.
 */
import type { ShellWord } from './types.js';

export interface OptionSpec {
  /** Short options that take a value: the rest of the word (`-m755`) or the next word (`-m 755`). */
  shortWithValue?: string;
  /**
   * The long options, without `--`; a trailing `=` marks one that takes a
   * value (`reference=`: `--reference=f` or `--reference f`). An unambiguous
   * prefix of one is read as it (`--rec` is `--recursive`).
   */
  long?: readonly string[];
  /** Operands end the options (POSIX order, `find`), instead of GNU's permutation. */
  operandsFirst?: boolean;
}

export interface ParsedOptions {
  /** Short option letters given, from every cluster. */
  short: Set<string>;
  /** Long options given, by full name (an unknown or ambiguous one as written, without `--`). */
  long: Set<string>;
  /** Values given to options that take one, by option (`-m`, `--reference`). */
  values: { option: string; value: ShellWord | undefined }[];
  /** The operands, in order. */
  operands: ShellWord[];
  /**
   * Words that depend on run time and could be options (`$FLAGS`, `-$x`):
   * also listed as operands unless they start with `-`.
   */
  unknown: ShellWord[];
}

/** Read `args` (the words after the program name) as options and operands. */
export function parseOptions(args: readonly ShellWord[], spec: OptionSpec = {}): ParsedOptions {
  const parsed: ParsedOptions = { short: new Set(), long: new Set(), values: [], operands: [], unknown: [] };
  const longs = (spec.long ?? []).map((l) => ({ name: l.replace(/=$/, ''), takesValue: l.endsWith('=') }));
  const withValue = spec.shortWithValue ?? '';
  let k = 0;
  for (; k < args.length; k++) {
    const word = args[k]!;
    const text = word.value;
    if (word.dynamic && (text.startsWith('-') || text.startsWith('$') || text.startsWith('`'))) {
      parsed.unknown.push(word);
      if (!text.startsWith('-')) parsed.operands.push(word);
      continue;
    }
    if (text === '--') {
      k++;
      break;
    }
    if (text.startsWith('--')) {
      const eq = text.indexOf('=');
      const given = eq < 0 ? text.slice(2) : text.slice(2, eq);
      const exact = longs.find((l) => l.name === given);
      const prefixed = longs.filter((l) => l.name.startsWith(given));
      const option = exact ?? (prefixed.length === 1 ? prefixed[0] : undefined);
      parsed.long.add(option?.name ?? given);
      if (option?.takesValue) {
        const value = eq < 0 ? args[++k] : { ...word, value: text.slice(eq + 1) };
        parsed.values.push({ option: `--${option.name}`, value });
      }
      continue;
    }
    if (text.startsWith('-') && text.length > 1) {
      for (let i = 1; i < text.length; i++) {
        const letter = text[i]!;
        parsed.short.add(letter);
        if (withValue.includes(letter)) {
          const rest = text.slice(i + 1);
          const value = rest !== '' ? { ...word, value: rest } : args[++k];
          parsed.values.push({ option: `-${letter}`, value });
          break;
        }
      }
      continue;
    }
    parsed.operands.push(word);
    if (spec.operandsFirst) {
      k++;
      break;
    }
  }
  parsed.operands.push(...args.slice(k));
  return parsed;
}
