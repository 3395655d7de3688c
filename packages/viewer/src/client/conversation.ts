/**
 * The conversation from the transcript: each message, and under an
 * assistant message each tool call it made, with its input, its output,
 * how long it ran and the approval decision (from the event log; the
 * transcript's tool message when the log has no result). Everything is
 * text: Markdown is not rendered, so a link or a tag in a model's answer
 * or a tool's output shows as written.
 */
import { useState } from 'preact/hooks';
import type { ToolRun } from '../model/session-fold.js';
import { sessionHref } from './api.js';
import { asText, formatDuration, oneLine, readable } from './format.js';
import { html } from './html.js';
import { StatusBadge } from './status-badge.js';

type Message = Record<string, unknown>;

interface CallRef {
  id: string;
  name: string;
  input: unknown;
}

/** Every tool call of the transcript's assistant messages, in order. */
export function transcriptCalls(messages: readonly Message[]): CallRef[] {
  return messages.filter((m) => m.role === 'assistant').flatMap(callsOf);
}

function blocks(content: unknown): { kind: string; text: string }[] {
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content))
    return content === undefined || content === null ? [] : [{ kind: 'text', text: asText(content) }];
  const out: { kind: string; text: string }[] = [];
  for (const block of content as Record<string, unknown>[]) {
    if (typeof block !== 'object' || block === null) continue;
    const type = String(block.type ?? 'text');
    if (type === 'text') out.push({ kind: 'text', text: asText(block.text) });
    else if (type === 'thinking' || type === 'reasoning')
      out.push({
        kind: 'thinking',
        text: asText(block.thinking ?? block.text ?? block.summary ?? block.content),
      });
    else if (type === 'redacted_thinking') out.push({ kind: 'thinking', text: '[redacted thinking]' });
    else if (type === 'tool_call' || type === 'tool_result') continue;
    else out.push({ kind: 'other', text: `[${type}] ${oneLine(block, 300)}` });
  }
  return out;
}

/** The calls of an assistant message: `tool_calls` (`{id, tool, arguments}`), or `tool_call` blocks. */
function callsOf(message: Message): CallRef[] {
  const out: CallRef[] = [];
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls as Record<string, unknown>[]) {
      out.push({
        id: String(call.id ?? ''),
        name: String(call.tool ?? call.name ?? 'tool'),
        input: call.arguments ?? call.input,
      });
    }
  } else if (Array.isArray(message.content)) {
    for (const block of message.content as Record<string, unknown>[]) {
      if (block?.type === 'tool_call')
        out.push({ id: String(block.id ?? ''), name: String(block.name ?? 'tool'), input: block.input });
    }
  }
  return out;
}

/** Up to this many tool calls, each shows its input and output at once; past it, on a click (a big session stays quick). */
export const OPEN_CALLS_UP_TO = 60;

function ToolCallView({
  call,
  event,
  result,
  startOpen,
}: {
  call: CallRef;
  event: ToolRun | undefined;
  result: Message | undefined;
  startOpen: boolean;
}) {
  const [open, setOpen] = useState(startOpen);
  const status = event?.status ?? (result === undefined ? 'no result' : 'done');
  const duration = event?.end != null ? formatDuration(event.end - event.start) : '—';
  const approval = event?.approval;
  const output = event !== undefined && event.output !== undefined ? event.output : result?.content;
  const error = event?.error;
  return html`<details
    class="tool-call"
    open=${open}
    data-tool-call-id=${call.id}
    onToggle=${(e: Event) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
  >
    <summary>
      <span class="tool-name">${call.name}</span>
      <${StatusBadge} status=${status} />
      <span class="duration">${duration}</span>
      ${
        approval
          ? html`<span class=${`approval approval-${approval.decision}`}>approval: ${approval.decision}${approval.source ? ` (${approval.source})` : ''}</span>`
          : null
      }
      <span class="preview">${oneLine(call.input, 80)}</span>
    </summary>
    ${
      open
        ? html`<div class="io">
      <h4>Input</h4>
      <pre class="tool-input">${readable(call.input)}</pre>
      ${approval?.reason ? html`<p class=${`approval-reason approval-${approval.decision}`}>Approval ${approval.decision}: ${approval.reason}</p>` : null}
      ${error && error !== approval?.reason ? html`<p class="tool-error">${error}</p>` : null}
      <h4>Output</h4>
      <pre class="tool-output">${output === undefined ? '(no output recorded)' : readable(output)}</pre>
      ${event?.subSession ? html`<p>Agent session: <a href=${sessionHref(event.subSession)}>${event.subSession}</a></p>` : null}
    </div>`
        : null
    }
  </details>`;
}

export function Conversation({ messages, tools }: { messages: Message[]; tools: Map<string, ToolRun> }) {
  if (messages.length === 0) return html`<p class="empty">No messages.</p>`;
  const results = new Map<string, Message>();
  for (const m of messages)
    if (m.role === 'tool' && typeof m.tool_call_id === 'string') results.set(m.tool_call_id, m);
  const shown = new Set<string>();
  const startOpen = transcriptCalls(messages).length <= OPEN_CALLS_UP_TO;
  const items = messages.map((message, i) => {
    const role = String(message.role);
    if (role === 'tool') {
      const id = String(message.tool_call_id ?? '');
      if (shown.has(id)) return null;
      return html`<div key=${i} class="message role-tool"><div class="role">tool result ${id}</div><pre class="text">${readable(message.content)}</pre></div>`;
    }
    const calls = role === 'assistant' ? callsOf(message) : [];
    for (const c of calls) shown.add(c.id);
    return html`<div key=${i} class=${`message role-${role.replace(/[^a-z_]/g, '')}`}>
      <div class="role">${role}</div>
      ${blocks(message.content).map((b) =>
        b.kind === 'thinking'
          ? html`<details class="thinking"><summary>thinking</summary><pre class="text">${b.text}</pre></details>`
          : html`<pre class="text">${b.text}</pre>`,
      )}
      ${calls.map((c) => html`<${ToolCallView} key=${c.id} call=${c} event=${tools.get(c.id)} result=${results.get(c.id)} startOpen=${startOpen} />`)}
    </div>`;
  });
  return html`<div class="conversation">${items}</div>`;
}
