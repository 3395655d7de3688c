/**
 * Rules compiled once at mount and evaluated in order for each tool call:
 * the first rule whose tool and `when` conditions match decides. `when`
 * values are globs (picomatch) or `/regex/flags`; on a shell tool's `command`
 * a glob is the reference's wildcard (`*` is any run of characters, any case)
 * and it is matched command by command (see shell-match.ts); on a path
 * argument it is matched on the normalised absolute and real paths (see
 * path-match.ts).
 */
import picomatch from 'picomatch';
import type { RuleAction, RuleConfig } from './config.js';
import { argumentPaths, PathPattern } from './path-match.js';
import { coversAll, hitsAny, type ShellView, shellView } from './shell-match.js';

/** A rule that matched, as events and audit records show it. */
export interface MatchedRule {
  /** Position in the evaluated list (configured rules first, then the defaults). */
  index: number;
  source: 'config' | 'default';
  tool: string | string[];
  when?: Record<string, string>;
  action: RuleAction;
  reason?: string;
}

export interface Evaluation {
  action: RuleAction;
  /** Null when `default_action` decided. */
  rule: MatchedRule | null;
  /** The split command line, for shell tools with a string `command`. */
  shell?: ShellView;
}

type Test = (text: string) => boolean;

/** A `when` entry: `key` is where the argument is (the segments of the dotted key). */
type Condition =
  /** Matched on the whole value (string form). */
  | { kind: 'text'; key: string[]; test: Test }
  /** The `command` of a rule that can apply to a shell tool: command by command on a shell tool. */
  | { kind: 'shell'; key: string[]; test: Test }
  /** A path argument (`path_arguments`): matched on its absolute and real paths. */
  | { kind: 'path'; key: string[]; pattern: PathPattern };

interface CompiledRule {
  info: MatchedRule;
  tool: Test;
  conditions: Condition[];
}

const REGEX_LITERAL = /^\/(.*)\/([dgimsuvy]*)$/s;

/** `/re/flags` -> a RegExp (g and y dropped: `test` must not keep state); else undefined. */
function regexOf(pattern: string, where: string): RegExp | undefined {
  const m = REGEX_LITERAL.exec(pattern);
  if (m === null) return undefined;
  try {
    return new RegExp(m[1]!, m[2]!.replace(/[gy]/g, ''));
  } catch (error) {
    throw new Error(`hooks-approval: invalid config: ${where}: ${(error as Error).message}`);
  }
}

/** The reference's command wildcard: `*` is any run of characters, anchored, any case; else exact. */
function wildcard(pattern: string): Test {
  if (!pattern.includes('*')) {
    const exact = pattern.toLowerCase();
    return (text) => text.toLowerCase() === exact;
  }
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const re = new RegExp(`^${body}$`, 'is');
  return (text) => re.test(text);
}

function valueTest(pattern: string, where: string, command: boolean): Test {
  const re = regexOf(pattern, where);
  if (re !== undefined) return (text) => re.test(text);
  if (command) return wildcard(pattern);
  const glob = picomatch(pattern, { dot: true });
  return (text) => glob(text);
}

/**
 * Compile every rule; a bad glob or regex fails with the rule's position.
 * A condition whose key ends in one of `pathArguments` is a path condition.
 */
export function compileRules(
  configured: readonly RuleConfig[],
  defaults: readonly RuleConfig[],
  shellTools: ReadonlySet<string>,
  pathArguments: ReadonlySet<string> = new Set(),
): CompiledRule[] {
  const all = [
    ...configured.map((rule) => ({ rule, source: 'config' as const })),
    ...defaults.map((rule) => ({ rule, source: 'default' as const })),
  ];
  return all.map(({ rule, source }, index) => {
    const where = `${source === 'config' ? `rules[${index}]` : `default rule ${index - configured.length}`}`;
    const names = Array.isArray(rule.tool) ? rule.tool : [rule.tool];
    const matchers = names.map((name) => picomatch(name));
    const anyShell = names.some((name) => [...shellTools].some((shell) => picomatch.isMatch(shell, name)));
    const conditions = Object.entries(rule.when ?? {}).map(([name, pattern]): Condition => {
      const key = name.split('.');
      const at = `${where}.when.${name}`;
      if (anyShell && name === 'command') return { kind: 'shell', key, test: valueTest(pattern, at, true) };
      if (pathArguments.has(key[key.length - 1]!)) {
        return { kind: 'path', key, pattern: new PathPattern(pattern, regexOf(pattern, at)) };
      }
      return { kind: 'text', key, test: valueTest(pattern, at, false) };
    });
    const info: MatchedRule = { index, source, tool: rule.tool, action: rule.action };
    if (rule.when !== undefined) info.when = { ...rule.when };
    if (rule.reason !== undefined) info.reason = rule.reason;
    return { info, tool: (name: string) => matchers.some((m) => m(name)), conditions };
  });
}

/** The value at a dotted path (`options.path`, `files.0`); own properties only. */
export function valueAt(input: unknown, segments: readonly string[]): unknown {
  let current = input;
  for (const segment of segments) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/**
 * A path condition: a deny or ask matches when any spelling of the argument
 * matches; an allow only when every spelling matches and every real path was
 * found (a path that looks allowed as written but resolves elsewhere is not).
 */
function pathMatches(
  pattern: PathPattern,
  action: RuleAction,
  tool: string,
  input: Record<string, unknown>,
  key: readonly string[],
  workingDir: string,
): boolean {
  const spelled = argumentPaths(tool, input, key, valueAt(input, key), workingDir);
  if (spelled === undefined || spelled.paths.length === 0) return false;
  const test = pattern.under(workingDir);
  if (action !== 'allow') return spelled.paths.some(test);
  return spelled.resolved && spelled.paths.every(test);
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * Decide one call: the first matching rule's action, else `defaultAction`.
 * Relative paths (in arguments and in rules) are relative to `workingDir`.
 */
export function evaluate(
  rules: readonly CompiledRule[],
  tool: string,
  input: Record<string, unknown>,
  isShell: boolean,
  defaultAction: RuleAction,
  workingDir: string = process.cwd(),
): Evaluation {
  let shell: ShellView | undefined;
  if (isShell && typeof input.command === 'string') shell = shellView(input.command);
  for (const rule of rules) {
    if (!rule.tool(tool)) continue;
    const matched = rule.conditions.every((condition) => {
      if (condition.kind === 'path') {
        return pathMatches(condition.pattern, rule.info.action, tool, input, condition.key, workingDir);
      }
      if (condition.kind === 'shell' && isShell) {
        if (shell === undefined) return false;
        return rule.info.action === 'allow'
          ? coversAll(shell, condition.test)
          : hitsAny(shell, condition.test);
      }
      const text = asText(valueAt(input, condition.key));
      return text !== undefined && condition.test(text);
    });
    if (matched)
      return shell
        ? { action: rule.info.action, rule: rule.info, shell }
        : { action: rule.info.action, rule: rule.info };
  }
  return shell ? { action: defaultAction, rule: null, shell } : { action: defaultAction, rule: null };
}
