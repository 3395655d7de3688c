/**
 * The timeline: every provider call and tool call as a bar over the
 * session's time; calls that overlap go on separate rows (parallel tool
 * calls side by side).
 */
import { assignLanes } from '../model/lanes.js';
import type { ProviderCall, ToolRun } from '../model/session-fold.js';
import { formatDuration } from './format.js';
import { html } from './html.js';

const ROW = 22;

export function Timeline({ calls, now }: { calls: (ProviderCall | ToolRun)[]; now: number }) {
  if (calls.length === 0) return html`<p class="empty">No provider or tool calls in the event log.</p>`;
  let t0 = Number.POSITIVE_INFINITY;
  let t1 = Number.NEGATIVE_INFINITY;
  for (const c of calls) {
    t0 = Math.min(t0, c.start);
    t1 = Math.max(t1, c.end ?? now);
  }
  t1 = Math.max(t1, t0 + 1);
  const span = t1 - t0;
  const { lanes, count } = assignLanes(calls, now);
  const bars = calls.map((call, i) => {
    const end = call.end ?? now;
    // A call of a few ms in a long session still gets a visible sliver, kept inside the lane.
    const width = Math.max(((end - call.start) / span) * 100, 0.4);
    const left = Math.min(((call.start - t0) / span) * 100, 100 - width);
    const label =
      call.kind === 'provider' ? `${call.provider}${call.model ? ` ${call.model}` : ''}` : call.name;
    const duration = formatDuration(end - call.start);
    const title = `${call.kind === 'provider' ? 'provider call' : `tool call ${call.id}`}: ${label}, ${duration}, ${call.status}${call.kind === 'provider' && call.usage ? `, ${call.usage.input} in / ${call.usage.output} out tokens` : ''}`;
    return html`<div
      key=${i}
      class=${`bar ${call.kind} status-${call.status}`}
      data-kind=${call.kind}
      data-lane=${lanes[i]}
      data-name=${label}
      title=${title}
      style=${{ left: `${left}%`, width: `${width}%`, top: `${lanes[i]! * ROW}px` }}
    ><span>${label} · ${duration}</span></div>`;
  });
  return html`<div class="timeline">
    <div class="lanes" style=${{ height: `${count * ROW}px` }}>${bars}</div>
    <div class="axis"><span>0</span><span>${formatDuration(span)}</span></div>
    <div class="legend"><span class="key provider"></span> provider call <span class="key tool"></span> tool call <span class="key error"></span> failed or denied</div>
  </div>`;
}
