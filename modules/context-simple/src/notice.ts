/**
 * The texts compaction writes, in the reference's exact wording: truncated
 * tool results, stubbed user messages (and the frozen messages carrying them),
 * and the notice (a system message that tells the model what the compacted
 * view left out).
 */
import type { Message } from '@amplifier/core';
import type { CompactionStats } from './compaction.js';
import type { NoticeVerbosity } from './config.js';

/** `metadata.source` of the notice message. */
export const NOTICE_SOURCE = 'context-compaction';

/** Truncate at `n` UTF-16 units without splitting a surrogate pair. */
function safeSlice(text: string, n: number): string {
  if (n <= 0) return '';
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** The stub text of a user message (reference wording). */
export function stubText(content: string): string {
  let preview = content.slice(0, 50).replace(/\n/g, ' ').trim();
  if (content.length > 50) preview += '...';
  return `[User message compacted - original: "${preview}"]`;
}

/** The truncated text of a tool result (reference wording). */
export function truncatedText(content: string, keepChars: number): string {
  const originalTokens = Math.floor(content.length / 4);
  return `[truncated: ~${thousands(originalTokens)} tokens - call tool again if needed] ${safeSlice(content, keepChars)}...`;
}

/**
 * A frozen `{ ...source, ...changes }` (keys in the same order). Built key by
 * key: V8 freezes such an object quickly, while freezing a spread copy of a
 * frozen object takes it down a slow path (microseconds each).
 */
function frozenWith(
  source: object | undefined | null,
  changes: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (key: string, value: unknown): void => {
    if (key === '__proto__') {
      Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
    } else out[key] = value;
  };
  if (source !== undefined && source !== null) {
    for (const key in source)
      if (Object.hasOwn(source, key)) put(key, (source as Record<string, unknown>)[key]);
  }
  for (const key in changes) put(key, changes[key]);
  return Object.freeze(out);
}

/** The truncated tool result (frozen), or undefined when it is short enough or would not get shorter. */
export function truncated(message: Message, keep: number): Message | undefined {
  const content = message.content;
  if (typeof content !== 'string' || content.length <= keep) return undefined;
  const text = truncatedText(content, keep);
  // A result barely over the limit would grow with the marker: leave it.
  if (text.length >= content.length) return undefined;
  const metadata = frozenWith(message.metadata, {
    _truncated: true,
    _original_tokens: Math.floor(content.length / 4),
  });
  return frozenWith(message, { content: text, metadata }) as unknown as Message;
}

/** The stubbed user message (frozen), or undefined when it is at most `minChars` long or would not get shorter. */
export function stubbed(message: Message, minChars: number): Message | undefined {
  const content = message.content;
  if (typeof content !== 'string' || content.length <= minChars) return undefined;
  const text = stubText(content);
  if (text.length >= content.length) return undefined; // a stub of a short message would be longer
  const metadata = frozenWith(message.metadata, { _stubbed: true, _original_length: content.length });
  return frozenWith(message, { content: text, metadata }) as unknown as Message;
}

const percent = (fraction: number): string => `${Math.round(fraction * 100)}%`;

function affectedItems(level: number, protectedToolResults: number): string {
  if (level <= 2) {
    return (
      '- Older tool results are truncated with "[truncated: ~N tokens]" prefix\n' +
      '- You can re-run tools if you need the full output'
    );
  }
  if (level <= 5) {
    return (
      '- Older tool results are truncated with "[truncated: ~N tokens]" prefix\n' +
      '- Older conversation messages have been removed\n' +
      '- You can re-run tools if you need full output'
    );
  }
  return (
    `- Most tool results are truncated (except last ${protectedToolResults})\n` +
    '- Significant conversation history has been removed\n' +
    '- Some user messages may be stubbed as "[User message compacted...]"\n' +
    '- If context is critical, consider asking user to clarify their current goal'
  );
}

/** The notice text for `stats`; `minimal` is one sentence, `normal` and `verbose` the full summary. */
export function formatCompactionNotice(stats: CompactionStats, verbosity: NoticeVerbosity): string {
  if (verbosity === 'minimal') {
    return (
      `<system-reminder source="${NOTICE_SOURCE}">\n` +
      'Context has been compacted to fit within token budget. ' +
      'Some older messages and tool results may be truncated.\n' +
      '</system-reminder>'
    );
  }
  const s = stats;
  return `<system-reminder source="${NOTICE_SOURCE}">
Context has been compacted to fit within token budget.

Compaction summary:
- Strategy level: ${s.strategy_level}/8
- Messages: ${s.before_messages} → ${s.after_messages} (${s.messages_removed} removed, ${s.user_messages_stubbed} stubbed)
- Tool results: ${s.messages_truncated} truncated
- Tokens: ${thousands(s.before_tokens)} → ${thousands(s.after_tokens)} (target: ${thousands(s.target_tokens)})

What was preserved:
- All system messages (your instructions and identity)
- Last user message (current task)
- Recent messages (${percent(s.protected_recent)} of conversation)
- Last ${s.protected_tool_results} tool results (full content)

What may be affected:
${affectedItems(s.strategy_level, s.protected_tool_results)}

Note: This compaction is ephemeral (affects only this request). Full history is preserved in session transcript.
</system-reminder>`;
}

/** The notice as the system message inserted at index 1 of the compacted view. */
export function noticeMessage(stats: CompactionStats, verbosity: NoticeVerbosity): Message {
  return {
    role: 'system',
    content: formatCompactionNotice(stats, verbosity),
    metadata: { source: NOTICE_SOURCE, ephemeral: true },
  };
}
