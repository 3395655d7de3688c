/**
 * The command safety validator: a pure function of the command text, the
 * policy and what it is told about where commands run (working directory,
 * home, a realpath function). It keeps the reference's text checks (quirks
 * included) on the raw text and on every simple command bash would run, as
 * the shell lexer sees it after quote removal, so `s''udo`, `\sudo`,
 * `env sudo`, `bash -c "sudo ..."` and newline-separated commands do not slip
 * through. Destruction is decided on effect (effects.ts), not on spelling:
 * a recursive delete or permission change of `/`, a top-level, system or
 * home directory, a write to a disk, code from the network run by an
 * interpreter, whatever the flags, quoting, wrappers or nesting. Under
 * `strict`, what cannot be checked from the text (a command name computed at
 * run time, a shell reading a pipe, a recursive delete of a path computed at
 * run time) is refused.
 *
 * A guard rail against accidents, not a sandbox: see the package README.
 */
import {
  commandLine,
  fullCommandText,
  type ShellCommand,
  splitShellCommands,
} from '@amplifier/process/shell';
import { commandEffects, type EffectContext, type EffectReport } from './effects.js';
import { type BlockPattern, resolveProfile, type SafetyPolicy } from './profiles.js';

export type { EffectContext, EffectKind } from './effects.js';

export type {
  BlockPattern,
  BlockPatternType,
  SafetyPolicy,
  SafetyProfile,
  SafetyProfileName,
} from './profiles.js';
export { EFFECT_PATTERNS, PROFILE_NAMES, resolveProfile, SAFETY_PROFILES } from './profiles.js';

/** The reference's result shape: every field but `allowed` is null when the command is allowed. */
export interface SafetyResult {
  allowed: boolean;
  reason: string | null;
  matched_pattern: string | null;
  hint: string | null;
}

const PROFILE_HINT = "Use safety_profile: 'permissive' or 'unrestricted' for container/VM environments";
const DENIED_HINT = 'Remove from denied_commands or add to allowed_commands (if profile allows overrides)';
const OVERRIDE_HINT = 'Remove from safety_overrides.block';
const OPAQUE_HINT =
  "Write the command name literally; strict mode cannot check commands built at run time (safety_profile: 'standard' does not try)";
const UNCHECKED_HINT =
  "Write the path out literally; strict mode cannot check what a recursive delete or permission change computed at run time reaches (safety_profile: 'standard' does not try)";

const ALLOWED: SafetyResult = Object.freeze({
  allowed: true,
  reason: null,
  matched_pattern: null,
  hint: null,
});

/**
 * Decide whether `command` may run under `policy`. Pure: the same input gives
 * the same result, nothing is run; only `context.realpath`, when given, reads
 * the filesystem. `context` says where commands run (`cwd`, `homes`): without
 * it, relative paths and `~` are judged as well as the text allows.
 *
 * Order: `unrestricted` allows all; a whole-command allowlist match (profiles
 * with overrides) skips the raw-text checks, but every simple command in it
 * that does not match the allowlist itself is still checked; then profile
 * patterns (text and effect), `denied_commands`, `safety_overrides.block`,
 * on the raw text and on each simple command.
 */
export function validateCommand(
  command: string,
  policy: SafetyPolicy,
  context: EffectContext = {},
): SafetyResult {
  const profile = resolveProfile(policy.safety_profile);
  if (profile.name === 'unrestricted') return ALLOWED;
  const allowList = profile.allowOverrides
    ? [...(policy.safety_overrides?.allow ?? []), ...(policy.allowed_commands ?? [])]
    : [];
  const denied = policy.denied_commands ?? [];
  const overrideBlocks = policy.safety_overrides?.block ?? [];
  const commands = splitShellCommands(command);

  const wholeAllowed = allowList.some((p) => allowMatch(command, p));
  const checked = wholeAllowed ? commands.filter((c) => !allowList.some((p) => isAllowed(c, p))) : commands;
  const raw = wholeAllowed ? null : rawText(command);

  const views = checked.map((c) => {
    const full = fullCommandText(c);
    return { line: commandLine(c).toLowerCase(), full, lowerFull: full.toLowerCase() };
  });
  let effects: EffectReport | undefined;
  const effectsOf = (): EffectReport => {
    effects ??= commandEffects(commands, context, { only: new Set(checked), text: command });
    return effects;
  };
  for (const block of profile.blocks) {
    if (block.type === 'effect') {
      const finding = effectsOf().findings.find((f) => f.effect === block.effect);
      if (finding) return blocked(`${block.reason}: ${finding.detail}`, block.pattern, PROFILE_HINT);
    } else if (
      (raw !== null && rawPatternHit(raw, block)) ||
      views.some((view) => viewPatternHit(view, block))
    ) {
      return blocked(block.reason, block.pattern, PROFILE_HINT);
    }
  }
  if (profile.name === 'strict') {
    const opaque = checked.find((c) => c.opaque !== undefined);
    if (opaque) return blocked(`Cannot check this command: ${opaque.opaque}`, opaque.source, OPAQUE_HINT);
    const unchecked = effectsOf().unchecked[0];
    if (unchecked !== undefined)
      return blocked(`Cannot check this command: ${unchecked}`, command, UNCHECKED_HINT);
  }
  const lists: [readonly string[], string, string][] = [
    [denied, 'Matches custom denied pattern: ', DENIED_HINT],
    [overrideBlocks, 'Blocked by safety_overrides: ', OVERRIDE_HINT],
  ];
  if (denied.length + overrideBlocks.length === 0) return ALLOWED;
  const texts = checked.flatMap((c) => [c.source, commandLine(c), fullCommandText(c)]);
  if (raw !== null) texts.unshift(command);
  for (const [patterns, prefix, hint] of lists) {
    for (const p of patterns) {
      if (texts.some((text) => denyMatch(text, p))) return blocked(`${prefix}${p}`, p, hint);
    }
  }
  return ALLOWED;
}

/** A wrapped command is matched on its own words only: `sudo *` does not allow `sudo rm -rf /`'s `rm -rf /`. */
function isAllowed(command: ShellCommand, pattern: string): boolean {
  return (
    (!command.wrapped && allowMatch(command.source, pattern)) || allowMatch(commandLine(command), pattern)
  );
}

function blocked(reason: string, pattern: string, hint: string): SafetyResult {
  return { allowed: false, reason, matched_pattern: pattern, hint };
}

// ------------------------------------------------------------- matching

/** The raw command text, lower-cased, with its quoted regions: computed once per validation. */
interface RawText {
  text: string;
  lower: string;
  quoted: [number, number][];
}

function rawText(text: string): RawText {
  return { text, lower: text.toLowerCase(), quoted: quotedRegions(text) };
}

const REGEX_CACHE = new Map<string, RegExp>();
function regex(pattern: string): RegExp {
  let re = REGEX_CACHE.get(pattern);
  if (re === undefined) {
    re = new RegExp(pattern, 'i');
    REGEX_CACHE.set(pattern, re);
  }
  return re;
}

/** The reference's checks on the raw command text. */
function rawPatternHit(raw: RawText, block: BlockPattern): boolean {
  switch (block.type) {
    case 'effect':
      return false;
    case 'command':
      return commandPositionHit(raw, block.pattern);
    case 'substring':
      return raw.lower.includes(block.pattern.toLowerCase());
    case 'regex':
      return regex(block.pattern).test(raw.text);
  }
}

/** The same checks on one simple command after quote removal (lower-cased `line` and `full`). */
function viewPatternHit(
  view: { line: string; full: string; lowerFull: string },
  block: BlockPattern,
): boolean {
  switch (block.type) {
    case 'effect':
      return false;
    case 'command':
      return view.line.startsWith(block.pattern.toLowerCase());
    case 'substring':
      return view.lowerFull.includes(block.pattern.toLowerCase());
    case 'regex':
      return regex(block.pattern).test(view.full);
  }
}

const SEPARATORS = [';', '|', '&&', '||', '(', '`', '$('];

/**
 * The reference's command-position rule: an occurrence (any case) outside
 * quotes whose preceding text, trailing whitespace stripped, is empty or ends
 * with a separator. Prefix match, no word boundary (`sudoku` matches `sudo`).
 */
export function atCommandPosition(command: string, pattern: string): boolean {
  return commandPositionHit(rawText(command), pattern);
}

function commandPositionHit({ text, lower, quoted }: RawText, pattern: string): boolean {
  const needle = pattern.toLowerCase();
  if (needle === '') return false;
  let region = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
    while (region < quoted.length && quoted[region]![1] <= at) region++;
    if (region < quoted.length && quoted[region]![0] <= at) continue; // inside quotes
    let end = at; // the text before, trailing whitespace stripped, is text[0, end)
    while (end > 0 && /\s/.test(text[end - 1]!)) end--;
    if (end > 0 && !SEPARATORS.some((s) => text.startsWith(s, end - s.length))) continue;
    if (pattern.includes('/') && at > 0 && !/[\s;|&()>`]/.test(text[at - 1]!)) continue;
    return true;
  }
  return false;
}

/** Single- and double-quoted spans `[start, end)`; a backslash escapes the next character inside them. */
function quotedRegions(command: string): [number, number][] {
  const regions: [number, number][] = [];
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote === null) {
      if (c === "'" || c === '"') {
        quote = c;
        start = i;
      }
    } else if (c === '\\') {
      i++;
    } else if (c === quote) {
      regions.push([start, i + 1]);
      quote = null;
    }
  }
  if (quote !== null) regions.push([start, command.length]);
  return regions;
}

function wildcard(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 'i');
}

/** Allowlist: exact (any case) or a `*` wildcard anchored at both ends; no substring fallback. */
export function allowMatch(command: string, pattern: string): boolean {
  if (command.toLowerCase() === pattern.toLowerCase()) return true;
  return pattern.includes('*') && wildcard(pattern).test(command);
}

/** Denylist: exact, wildcard, or (no `*` in the pattern) a substring, any case. */
export function denyMatch(command: string, pattern: string): boolean {
  if (allowMatch(command, pattern)) return true;
  return !pattern.includes('*') && pattern !== '' && command.toLowerCase().includes(pattern.toLowerCase());
}
