/**
 * One session: its summary, what could not be read, the timeline, token
 * and cost charts, the conversation with its tool calls, and its agent
 * sessions. The page follows the session live: new events and messages
 * arrive as server-sent events from where the snapshot ended.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { matchToolCalls } from '../model/match-calls.js';
import type { EventRecord } from '../model/records.js';
import { SessionFold } from '../model/session-fold.js';
import type { LiveUpdate, SessionDetail, SessionSummary } from '../model/summary.js';
import { fetchSession, sessionHref } from './api.js';
import { CostChart, TokenChart } from './charts.js';
import { Conversation, transcriptCalls } from './conversation.js';
import { formatCost, formatDuration, formatTime, formatTokens } from './format.js';
import { html } from './html.js';
import { StatusBadge } from './status-badge.js';
import { Timeline } from './timeline.js';

interface Live {
  detail: SessionDetail;
  fold: SessionFold;
  messages: Record<string, unknown>[];
  summary: SessionSummary;
  problems: string[];
  offsets: { events: number; transcript: number };
  version: number;
}

function Summary({ s }: { s: SessionSummary }) {
  return html`<dl class="summary">
    <div><dt>Status</dt><dd><${StatusBadge} status=${s.status} /></dd></div>
    <div><dt>Model</dt><dd class="model">${s.model ?? '—'}${s.provider ? ` (${s.provider})` : ''}</dd></div>
    <div><dt>Duration</dt><dd>${formatDuration(s.durationMs)}</dd></div>
    <div><dt>Tokens</dt><dd>${formatTokens(s.tokens.input)} in / ${formatTokens(s.tokens.output)} out${s.tokens.cacheRead > 0 ? ` (${formatTokens(s.tokens.cacheRead)} cache read)` : ''}</dd></div>
    <div><dt>Cost</dt><dd>${formatCost(s.cost)}</dd></div>
    <div><dt>Calls</dt><dd>${s.providerCalls} provider, ${s.toolCalls} tool</dd></div>
    <div><dt>Events</dt><dd class="event-count">${s.events}</dd></div>
    <div><dt>Started</dt><dd>${formatTime(s.created)}</dd></div>
    <div><dt>Directory</dt><dd>${s.cwd ?? '—'}</dd></div>
    ${s.parentId ? html`<div><dt>Parent</dt><dd><a href=${sessionHref(s.parentId)}>${s.parentId}</a></dd></div>` : null}
  </dl>`;
}

export function SessionPage({ id }: { id: string }) {
  const [live, setLive] = useState<Live | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<Live | null>(null);

  useEffect(() => {
    let stopped = false;
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const connect = (): void => {
      const current = ref.current;
      if (stopped || current === null) return;
      source = new EventSource(
        `api/sessions/${encodeURIComponent(id)}/live?events=${current.offsets.events}&transcript=${current.offsets.transcript}`,
      );
      source.onmessage = (message) => {
        const state = ref.current;
        if (state === null) return;
        const update = JSON.parse(message.data as string) as LiveUpdate;
        if (update.kind === 'events') {
          for (const record of update.records) state.fold.add(record as EventRecord);
          state.offsets.events = update.offset;
        } else if (update.kind === 'messages') {
          state.messages.push(...(update.messages as Record<string, unknown>[]));
          state.offsets.transcript = update.offset;
        } else if (update.kind === 'summary') {
          // The stream starts with the summary the page already has: no need to draw it all again.
          if (JSON.stringify(update.summary) === JSON.stringify(state.summary)) return;
          state.summary = update.summary;
        } else {
          state.problems.push(update.text);
        }
        state.version++;
        setLive({ ...state });
      };
      source.onerror = () => {
        // Reconnect from the offsets reached, so nothing is shown twice.
        source?.close();
        if (!stopped) retry = setTimeout(connect, 2000);
      };
    };
    fetchSession(id)
      .then((detail) => {
        if (stopped) return;
        const fold = new SessionFold();
        for (const record of detail.events) fold.add(record as EventRecord);
        const state: Live = {
          detail,
          fold,
          messages: detail.messages as Record<string, unknown>[],
          summary: detail.summary,
          problems: [...detail.summary.problems],
          offsets: { ...detail.offsets },
          version: 0,
        };
        ref.current = state;
        setLive(state);
        connect();
      })
      .catch((e: Error) => !stopped && setError(e.message));
    return () => {
      stopped = true;
      source?.close();
      clearTimeout(retry);
    };
  }, [id]);

  const tools = useMemo(
    () => (live === null ? new Map() : matchToolCalls(transcriptCalls(live.messages), live.fold.toolCalls)),
    [live?.version, live],
  );

  if (error !== null)
    return html`<main class="session-page"><p class="problem">${error}</p><p><a href="#/">All sessions</a></p></main>`;
  if (live === null)
    return html`<main class="session-page"><p class="loading">Loading the session…</p></main>`;
  const s = live.summary;
  const calls = [...live.fold.calls, ...live.fold.toolCalls];
  const now = s.status === 'running' ? Date.now() : (live.fold.end ?? Date.now());
  return html`<main class="session-page" data-session-id=${s.id}>
    <h1>${s.name ?? s.agent ?? s.id}${s.status === 'running' ? html` <span class="live-dot" title="following the session live">live</span>` : null}</h1>
    <p class="sub">${s.id}${s.writer === 'amplifier' ? ' · written by Amplifier (Python)' : ''}</p>
    <${Summary} s=${s} />
    ${
      live.problems.length > 0
        ? html`<section class="problems"><h2>What could not be read</h2><ul>${live.problems.map((p, i) => html`<li key=${i}>${p}</li>`)}</ul></section>`
        : null
    }
    <section><h2>Timeline</h2><${Timeline} calls=${calls} now=${now} /></section>
    <section class="charts"><h2>Tokens and cost</h2><div class="chart-row"><${TokenChart} calls=${live.fold.calls} /><${CostChart} calls=${live.fold.calls} /></div></section>
    ${
      live.fold.errors.length > 0
        ? html`<section class="errors"><h2>Errors</h2><ul>${live.fold.errors.map((e, i) => html`<li key=${i}>${e.text}</li>`)}</ul></section>`
        : null
    }
    ${
      live.detail.children.length > 0
        ? html`<section class="children"><h2>Agent sessions</h2><ul>${live.detail.children.map(
            (c) =>
              html`<li key=${c.id}><a href=${sessionHref(c.id)}>${c.agent ?? c.name ?? c.id}</a> <${StatusBadge} status=${c.status} /> ${formatDuration(c.durationMs)}</li>`,
          )}</ul></section>`
        : null
    }
    <section><h2>Conversation</h2><${Conversation} messages=${live.messages} tools=${tools} /></section>
  </main>`;
}
