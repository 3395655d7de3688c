/**
 * What the command definitions share: the common flags (`--cwd`, `--json`,
 * `--verbose`) and the parsers of option values.
 */
import { type Command, InvalidArgumentError } from 'commander';

export interface Common {
  cwd?: string;
  json?: boolean;
  verbose?: boolean;
}

/** A repeatable option's values. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A whole number >= 1, or -1 for no limit. */
export function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || (n < 1 && n !== -1)) {
    throw new InvalidArgumentError('a whole number >= 1, or -1 for no limit');
  }
  return n;
}

/** A port number (0: any free one). */
export function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new InvalidArgumentError('a port number from 0 to 65535 (0 picks a free one)');
  }
  return n;
}

/** The smallest line cap accepted: an `initialize` request must fit. */
export const MIN_MAX_LINE_BYTES: number = 1024;

/**
 * A size in bytes as given on the command line or in the environment:
 * `4194304`, `512KiB`, `4MiB` (`k`, `kb`, `m`, `mb` are read as KiB and MiB
 * too); undefined when it is not one, or under `MIN_MAX_LINE_BYTES`.
 */
export function parseByteSize(text: string): number | undefined {
  const match = /^\s*(\d+)\s*(k|kb|kib|m|mb|mib)?\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = (match[2] ?? '').toLowerCase();
  const value = Number(match[1]) * (unit.startsWith('m') ? 1024 * 1024 : unit.startsWith('k') ? 1024 : 1);
  return Number.isSafeInteger(value) && value >= MIN_MAX_LINE_BYTES ? value : undefined;
}

/** A size in bytes: `4194304`, `512KiB`, `4MiB`, at least 1024. */
export function byteSize(value: string): number {
  const n = parseByteSize(value);
  if (n === undefined)
    throw new InvalidArgumentError('a size of at least 1024 bytes: 4194304, 512KiB or 4MiB');
  return n;
}

/** A number of seconds above 0. */
export function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a number of seconds above 0');
  return n;
}

/** `--cwd`, `--json` and `--verbose`. */
export function common(command: Command): Command {
  return command
    .option('--cwd <dir>', 'working directory of the session and its tools (default: the current one)')
    .option('--json', 'print JSON for scripts instead of text')
    .option('-v, --verbose', 'more detail: debug lines, thinking, stack traces');
}
