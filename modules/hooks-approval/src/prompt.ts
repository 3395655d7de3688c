/**
 * The approval prompt: the tool, the call id and args hash the answer is bound
 * to, the rule that asked, the exact arguments as pretty JSON (bounded, with
 * a marker), the commands of a compound shell line, and what "Allow always"
 * would allow. Characters that could disguise the text on a terminal (C1
 * controls, bidi overrides, zero-width characters) are shown escaped.
 */
import { commandLine } from '@amplifier/process/shell';
import { canonicalJson, shortHash } from './binding.js';
import type { MatchedRule } from './rules.js';
import type { ShellView } from './shell-match.js';

/** The answers offered; the kernel allows on the first two (case-insensitive) and denies otherwise. */
export const APPROVAL_OPTIONS: readonly string[] = Object.freeze(['Allow once', 'Allow always', 'Deny']);

export interface PromptInput {
  tool: string;
  toolCallId: string;
  hash: string;
  input: Record<string, unknown>;
  rule: MatchedRule | null;
  shell: ShellView | undefined;
  /** What "Allow always" remembers for a shell line, when it can remember prefixes. */
  prefixes: string[][] | undefined;
  maxChars: number;
}

const DISGUISING =
  /[\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g;

/** Make characters that could hide or reorder text visible (`\u202e`). */
export function escapeDisguising(text: string): string {
  return text.replace(DISGUISING, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A short description of a rule: `#3 bash command "rm*" → deny`. */
export function describeRule(rule: MatchedRule | null): string {
  if (rule === null) return 'no rule matched (default_action)';
  const tools = Array.isArray(rule.tool) ? rule.tool.join('|') : rule.tool;
  const when = Object.entries(rule.when ?? {})
    .map(([key, pattern]) => ` ${key} ${JSON.stringify(pattern)}`)
    .join('');
  const reason = rule.reason ? ` (${rule.reason})` : '';
  return `#${rule.index} ${tools}${when} → ${rule.action}${reason}`;
}

function prettyArguments(input: Record<string, unknown>, maxChars: number): string {
  const pretty = JSON.stringify(JSON.parse(canonicalJson(input)), null, 2);
  if (pretty.length <= maxChars) return pretty;
  return `${pretty.slice(0, maxChars)}\n… [arguments cut: ${pretty.length - maxChars} more characters not shown; the hash above covers all of them]`;
}

export function buildPrompt(p: PromptInput): string {
  const budget = Math.max(100, p.maxChars - 600);
  const lines = [
    `Tool call needs approval: ${p.tool}`,
    `Call ${p.toolCallId}, arguments ${shortHash(p.hash)}`,
    `Rule: ${describeRule(p.rule)}`,
    'Arguments:',
    prettyArguments(p.input, budget),
  ];
  if (p.shell !== undefined && p.shell.commands.length > 1) {
    const commands = p.shell.commands.map((c) => commandLine(c) || c.source).join(' ; ');
    lines.push(`Commands: ${commands.length > 300 ? `${commands.slice(0, 300)}…` : commands}`);
  }
  if (p.shell?.unreadable !== undefined)
    lines.push(`Cannot be checked command by command: ${p.shell.unreadable}`);
  if (p.prefixes !== undefined) {
    const list = p.prefixes.map((words) => words.join(' ')).join(', ');
    lines.push(
      `"Allow always": ${p.tool} commands starting with ${list} (and these exact arguments), for this session`,
    );
  } else {
    lines.push(`"Allow always": ${p.tool} with these exact arguments, for this session`);
  }
  return escapeDisguising(lines.join('\n'));
}
