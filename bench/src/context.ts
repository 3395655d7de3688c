/**
 * context-simple `getMessagesForRequest` over histories of 1k, 10k and 100k
 * messages (a realistic mix: user prompts, assistant tool calls, tool results
 * of ~400 characters, assistant answers), with a budget the history fits in
 * (no compaction) and with half the history's tokens as budget (compaction).
 */
import { performance } from 'node:perf_hooks';
import type { Message } from '@amplifier/core';
import {
  fmt,
  type Group,
  type GroupOptions,
  meets,
  missing,
  notAvailable,
  type Row,
  runChild,
  summarize,
} from './stats.js';

const GROUP = 'context';
const SIZES = [1_000, 10_000, 100_000];

/** `n` messages in groups of four: user, assistant with a tool call, tool result, assistant text. */
export function history(n: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; messages.length < n; i++) {
    const id = `call_${i}`;
    const round: Message[] = [
      {
        role: 'user',
        content: `Step ${i}: look at file src/module-${i % 97}.ts and tell me what the exported function does.`,
      },
      {
        role: 'assistant',
        content: 'Let me read it.',
        tool_calls: [{ id, tool: 'read_file', arguments: { file_path: `src/module-${i % 97}.ts` } }],
      },
      {
        role: 'tool',
        tool_call_id: id,
        content: `     1\texport function handler${i}(input: string) {\n${'     2\t  return input.trim().toLowerCase(); // normalise\n'.repeat(7)}`,
      },
      {
        role: 'assistant',
        content: `The function handler${i} trims and lowercases its input and returns it; it has no side effects and never throws.`,
      },
    ];
    for (const m of round) if (messages.length < n) messages.push(m);
  }
  return messages;
}

interface Sample {
  none: number[];
  compacting: number[];
  kept: number;
  tokens: number;
}

/** Child task: time `getMessagesForRequest` for `n` messages without and with compaction. */
async function requestTimes(args: { n: number; calls: number }): Promise<Sample> {
  const { SimpleContextManager, estimateTokens } = await import('@amplifier/context-simple');
  const messages = history(args.n);
  const context = new SimpleContextManager({});
  await context.setMessages(messages);
  const tokens = messages.reduce((sum, m) => sum + estimateTokens(m), 0);
  const time = async (tokenBudget: number): Promise<{ ms: number; length: number }> => {
    const start = performance.now();
    const view = await context.getMessagesForRequest({ tokenBudget });
    return { ms: performance.now() - start, length: view.length };
  };
  const big = tokens * 10;
  const half = Math.floor(tokens / 2);
  await time(big);
  await time(half);
  const none: number[] = [];
  const compacting: number[] = [];
  let kept = 0;
  for (let i = 0; i < args.calls; i++) {
    none.push((await time(big)).ms);
    const c = await time(half);
    compacting.push(c.ms);
    kept = c.length;
  }
  return { none, compacting, kept, tokens };
}

export const tasks = { requestTimes };

async function run(options: GroupOptions): Promise<Row[]> {
  const reason = await missing('@amplifier/context-simple');
  if (reason !== undefined) return [notAvailable(GROUP, 'context-simple getMessagesForRequest', reason)];
  const rows: Row[] = [];
  for (const n of options.quick ? [1_000, 10_000] : SIZES) {
    options.log(`context: ${n} messages`);
    const calls = Math.max(options.runs, n >= 100_000 ? 5 : 20);
    const { value } = await runChild<Sample>('child.js', [
      GROUP,
      'requestTimes',
      JSON.stringify({ n, calls }),
    ]);
    const none = summarize(value.none);
    const comp = summarize(value.compacting);
    const at10k = n === 10_000;
    rows.push({
      group: GROUP,
      what: `getMessagesForRequest, ${fmt(n)} messages (~${fmt(value.tokens)} tokens), no compaction needed`,
      value: `${fmt(none.median)} ms`,
      range: `${fmt(none.min)}–${fmt(none.max)}`,
      ...(at10k && { target: '≤ 0.5 ms', meets: meets(none.median, 0.5) }),
    });
    rows.push({
      group: GROUP,
      what: `getMessagesForRequest, ${fmt(n)} messages, compacting to half the tokens' budget (keeps ${fmt(value.kept)})`,
      value: `${fmt(comp.median)} ms`,
      range: `${fmt(comp.min)}–${fmt(comp.max)}`,
      ...(at10k && { target: '≤ 20 ms', meets: meets(comp.median, 20) }),
    });
  }
  return rows;
}

export const group: Group = { name: GROUP, title: 'context-simple scaling', run };
