/**
 * The state one effect analysis carries along a command line, and what it
 * reports: the effects found and what the text cannot tell.
 */
import type { ShellCommand } from '@amplifier/process/shell';
import type { TextState } from './targets.js';

/** The effects the safety profiles refuse. */
export type EffectKind =
  | 'delete-root'
  | 'delete-home'
  | 'chmod-root'
  | 'chown-root'
  | 'device-write'
  | 'remote-code'
  | 'environ-read';

/** What the validator knows about where commands run. */
export interface EffectContext {
  /** The working directory commands start in (absolute); relative paths are judged against it. */
  cwd?: string;
  /** The home directories `~` and `$HOME` may mean. */
  homes?: readonly string[];
  /** Resolve a path through symlinks on the real filesystem (undefined when it does not exist). */
  realpath?: (path: string) => string | undefined;
  /**
   * The environment commands get: a variable the command line does not set
   * is read from it (`rm -rf "$BUILD/"*` with BUILD unset is `rm -rf /*`).
   */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface EffectOptions {
  /** Report only what these commands do (all are walked: they set variables and directories). */
  only?: ReadonlySet<ShellCommand>;
  /** The command line as written: variables it may set in ways not followed are then not read from `env`. */
  text?: string;
}

export interface Finding {
  effect: EffectKind;
  /** What was found, for the model: `rm would delete ~ (/root) recursively`. */
  detail: string;
}

export interface EffectReport {
  findings: Finding[];
  /** What the text does not say (a recursive delete of a path computed at run time). */
  unchecked: string[];
}

/** The state of one analysis. */
export interface Walk {
  context: EffectContext;
  state: TextState;
  report: EffectReport;
  /** Files downloaded by the command line (absolute, or `rel:` + a path relative to an unknown directory). */
  downloaded: Set<string>;
  /** Symbolic links the command line makes: absolute link path -> absolute target. */
  links: Map<string, string>;
  /** Report only what these commands do (all are walked: they set variables and directories). */
  only: ReadonlySet<ShellCommand> | undefined;
  /** The command of the input list being walked. */
  current: ShellCommand | undefined;
  /** Command lines re-read so far. */
  rereads: number;
}

/** Report a finding of the command being walked (when it is one of those reported). */
export function found(walk: Walk, finding: Finding): void {
  if (walk.only === undefined || (walk.current !== undefined && walk.only.has(walk.current))) {
    walk.report.findings.push(finding);
  }
}

/** Report what the text cannot tell about the command being walked (when it is one of those reported). */
export function unchecked(walk: Walk, text: string): void {
  if (walk.only === undefined || (walk.current !== undefined && walk.only.has(walk.current))) {
    walk.report.unchecked.push(text);
  }
}
