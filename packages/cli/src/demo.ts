/**
 * The offline demo: a `respond` function for provider-mock that plays the
 * model. It drives the real tools on the working directory (glob, read_file,
 * grep, bash), one step per request, and ends with a summary built from what
 * the tools actually returned. Nothing is faked but the model's choices.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChatRequest, ChatResponse, ContentBlock, Message, ToolCall } from '@amplifier/core';
import { commandName } from './command-name.js';

/** The prompt used when the demo runs without one. */
export const DEMO_PROMPT = 'Show me around this project.';

const STEPS = ['glob', 'read_file', 'grep', 'bash'] as const;
const NOTHING_TO_READ = 'no file to read';
type Step = (typeof STEPS)[number];

/** What one earlier step returned: parsed JSON output, or the raw text of an error. */
type Outcome = { ok: true; output: Record<string, unknown> } | { ok: false; text: string };

function text(value: string): ContentBlock[] {
  return [{ type: 'text', text: value }];
}

function contentText(content: Message['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((block) => ('text' in block && typeof block.text === 'string' ? block.text : ''))
    .join('');
}

function parseOutcome(content: Message['content']): Outcome {
  const raw = contentText(content);
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const output = parsed as Record<string, unknown>;
      if (typeof output.error === 'object' || output.success === false) return { ok: false, text: raw };
      return { ok: true, output };
    }
  } catch {
    // Not JSON: an error message ("Error: ...") or a truncated listing.
  }
  return { ok: false, text: raw };
}

/** The results of this turn's demo steps, by step (from tool messages after the last user message). */
function outcomes(messages: readonly Message[], turn: string): Map<Step, Outcome> {
  const found = new Map<Step, Outcome>();
  for (const message of messages) {
    if (message.role !== 'tool' || typeof message.tool_call_id !== 'string') continue;
    const [prefix, step] = [
      message.tool_call_id.slice(0, turn.length),
      message.tool_call_id.slice(turn.length),
    ];
    if (prefix === turn && (STEPS as readonly string[]).includes(step)) {
      found.set(step as Step, parseOutcome(message.content));
    }
  }
  return found;
}

/** Pick a file worth reading from glob's matches: README, then package.json, then the first text-like file. */
export function pickFile(matches: readonly string[]): string | undefined {
  const top = matches.filter((p) => !p.includes('/') && !p.includes('\\'));
  const byName = (re: RegExp): string | undefined => top.find((p) => re.test(path.basename(p)));
  return (
    byName(/^readme(\.md|\.txt|\.rst)?$/i) ??
    byName(/^package\.json$/) ??
    byName(/^(pyproject\.toml|cargo\.toml|go\.mod)$/i) ??
    matches.find((p) => /\.(md|txt|json|ts|js|py|rs|go|toml|ya?ml)$/i.test(p))
  );
}

/** The files at the top of `cwd` (none when it cannot be read). */
function topLevelFiles(cwd: string): string[] {
  try {
    return fs
      .readdirSync(cwd, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

/** glob's matches, relative to the working directory. */
function matchPaths(outcome: Outcome | undefined, cwd: string): string[] {
  if (outcome?.ok !== true || !Array.isArray(outcome.output.matches)) return [];
  return outcome.output.matches
    .map((m) => (m !== null && typeof m === 'object' ? (m as { path?: unknown }).path : undefined))
    .filter((p): p is string => typeof p === 'string')
    .map((p) => (path.isAbsolute(p) ? path.relative(cwd, p) : p));
}

function failure(outcome: Outcome): string {
  const first = outcome.ok ? '' : (outcome.text.split('\n')[0] ?? '');
  return first.length > 160 ? `${first.slice(0, 160)}…` : first;
}

function describeGlob(outcome: Outcome, cwd: string): string {
  if (!outcome.ok) return `glob failed: ${failure(outcome)}`;
  const total = Number(outcome.output.total_files ?? 0);
  const counts = new Map<string, number>();
  for (const p of matchPaths(outcome, cwd)) {
    const ext = path.extname(p) || '(no extension)';
    counts.set(ext, (counts.get(ext) ?? 0) + 1);
  }
  const top = [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([ext, n]) => `${ext} ${n}`);
  return `glob found ${total} file${total === 1 ? '' : 's'}${top.length > 0 ? ` (mostly ${top.join(', ')})` : ''}`;
}

function describeRead(outcome: Outcome, cwd: string): string {
  if (!outcome.ok) return `read_file failed: ${failure(outcome)}`;
  const given = String(outcome.output.file_path ?? 'the file');
  const file = path.isAbsolute(given) ? path.relative(cwd, given) || given : given;
  const lines = Number(outcome.output.total_lines ?? 0);
  const firstLine = String(outcome.output.content ?? '')
    .split('\n')
    .map((line) => line.replace(/^\s*\d+\t/, '').trim())
    .find((line) => line !== '');
  const opening = firstLine
    ? `; it opens with "${firstLine.length > 70 ? `${firstLine.slice(0, 70)}…` : firstLine}"`
    : '';
  return `read_file read ${file} (${lines} line${lines === 1 ? '' : 's'})${opening}`;
}

function describeGrep(outcome: Outcome): string {
  if (!outcome.ok) return `grep failed: ${failure(outcome)}`;
  const matches = Number(outcome.output.matches_count ?? 0);
  const files =
    outcome.output.counts && typeof outcome.output.counts === 'object'
      ? Object.keys(outcome.output.counts).length
      : 0;
  if (matches === 0) return 'grep found no TODO or FIXME markers';
  return `grep found ${matches} TODO/FIXME marker${matches === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}`;
}

function describeBash(outcome: Outcome): string {
  if (!outcome.ok) return `bash failed: ${failure(outcome)}`;
  const entries = String(outcome.output.stdout ?? '')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const shown = entries.slice(0, 6).join(', ');
  return `bash ran \`ls -p\`: ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'} at the top level (${shown}${entries.length > 6 ? ', …' : ''})`;
}

function call(turn: string, step: Step, args: Record<string, unknown>): ToolCall {
  return { id: `${turn}${step}`, name: step, arguments: args };
}

/**
 * A provider-mock `respond` function for the offline demo on `cwd`. Each
 * request looks at the tool results of the current turn and takes the next
 * step; the last answer reports what the tools found.
 */
export function demoResponder(cwd: string): (request: ChatRequest) => ChatResponse {
  return (request) => {
    const messages = request.messages;
    let userIndex = -1;
    let userTurns = 0;
    messages.forEach((m, i) => {
      if (m.role === 'user') {
        userIndex = i;
        userTurns++;
      }
    });
    const prompt = userIndex >= 0 ? contentText(messages[userIndex]!.content).trim() : '';
    const turn = `demo_${userTurns}_`;
    const done = outcomes(messages.slice(userIndex + 1), turn);
    const available = new Set((request.tools ?? []).map((t) => t.name));
    const next = STEPS.find((step) => !done.has(step) && available.has(step));

    if (next === 'glob') {
      return {
        content: text('Looking around the project.'),
        tool_calls: [call(turn, 'glob', { pattern: '**/*', type: 'file', exclude: ['**/.*/**'] })],
      };
    }
    if (next === 'read_file') {
      // glob keeps its newest matches: in a fresh clone the README may be past the cap, so the
      // top level of the directory is offered first.
      const file = pickFile([...topLevelFiles(cwd), ...matchPaths(done.get('glob'), cwd)]);
      if (file !== undefined) {
        return {
          content: text(`Reading ${file}.`),
          tool_calls: [call(turn, 'read_file', { file_path: file, limit: 40 })],
        };
      }
      done.set('read_file', { ok: false, text: NOTHING_TO_READ });
    }
    const afterRead = STEPS.find((step) => !done.has(step) && available.has(step));
    if (afterRead === 'grep') {
      return {
        content: text('Searching for TODO and FIXME markers.'),
        tool_calls: [call(turn, 'grep', { pattern: 'TODO|FIXME', output_mode: 'count' })],
      };
    }
    if (afterRead === 'bash') {
      return {
        content: text('Listing the top level with a shell command.'),
        tool_calls: [call(turn, 'bash', { command: 'ls -p' })],
      };
    }
    return { content: text(summary(cwd, prompt, done, available)), finish_reason: 'stop' };
  };
}

function summary(cwd: string, prompt: string, done: Map<Step, Outcome>, available: Set<string>): string {
  const found: string[] = [];
  const glob = done.get('glob');
  if (glob) found.push(describeGlob(glob, cwd));
  const read = done.get('read_file');
  if (read !== undefined && !(read.ok === false && read.text === NOTHING_TO_READ))
    found.push(describeRead(read, cwd));
  const grep = done.get('grep');
  if (grep) found.push(describeGrep(grep));
  const bash = done.get('bash');
  if (bash) found.push(describeBash(bash));
  const missing = STEPS.filter((s) => !available.has(s));
  const lines = [`Here is what the real tools found in ${cwd}:`, ...found.map((f) => `- ${f}`)];
  if (missing.length > 0) lines.push(`- (not mounted, skipped: ${missing.join(', ')})`);
  lines.push('');
  if (prompt !== '' && prompt !== DEMO_PROMPT) {
    lines.push(
      `You asked: "${prompt.length > 80 ? `${prompt.slice(0, 80)}…` : prompt}". The offline demo cannot answer it: its model is a script.`,
    );
  }
  lines.push(
    'The model in this run was a script (provider-mock); the tools were real. To use a real model, set',
    `ANTHROPIC_API_KEY or OPENAI_API_KEY (or OPENAI_BASE_URL for a local server) and run: ${commandName()} run "<your question>"`,
  );
  return lines.join('\n');
}
