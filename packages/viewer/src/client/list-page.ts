/** The list of sessions: agent sessions under their parent, newest first. */
import { useEffect, useState } from 'preact/hooks';
import type { SessionSummary } from '../model/summary.js';
import { fetchSessions, sessionHref } from './api.js';
import { formatCost, formatDuration, formatTime, formatTokens } from './format.js';
import { html } from './html.js';
import { StatusBadge } from './status-badge.js';

function Row({ session, depth }: { session: SessionSummary; depth: number }) {
  const title = session.name ?? session.agent ?? session.id;
  return html`<tr class="session-row" data-session-id=${session.id}>
    <td class="name" style=${`padding-left:${0.5 + depth * 1.5}em`}>
      ${depth > 0 ? html`<span class="agent-mark">↳ </span>` : null}
      <a href=${sessionHref(session.id)}>${title}</a>
      <div class="sub">${session.id}${session.writer === 'amplifier' ? html` <span class="tag">Amplifier (Python)</span>` : null}</div>
    </td>
    <td><${StatusBadge} status=${session.status} /></td>
    <td class="model">${session.model ?? '—'}</td>
    <td class="num duration">${formatDuration(session.durationMs)}</td>
    <td class="num tokens" title=${`${session.tokens.input} in, ${session.tokens.output} out, ${session.tokens.cacheRead} cache read`}>
      ${formatTokens(session.tokens.input)} / ${formatTokens(session.tokens.output)}
    </td>
    <td class="num cost">${formatCost(session.cost)}</td>
    <td class="num">${session.toolCalls}</td>
    <td class="updated">${formatTime(session.updated)}${session.problems.length > 0 ? html` <span class="warn" title=${session.problems.join('\n')}>⚠</span>` : null}</td>
  </tr>`;
}

function rows(sessions: SessionSummary[]) {
  const ids = new Set(sessions.map((s) => s.id));
  const children = new Map<string, SessionSummary[]>();
  for (const s of sessions) {
    if (s.parentId !== null && ids.has(s.parentId)) {
      const list = children.get(s.parentId) ?? [];
      list.push(s);
      children.set(s.parentId, list);
    }
  }
  const out: unknown[] = [];
  const walk = (s: SessionSummary, depth: number, seen: Set<string>): void => {
    if (seen.has(s.id)) return;
    seen.add(s.id);
    out.push(html`<${Row} key=${s.id} session=${s} depth=${depth} />`);
    for (const child of children.get(s.id) ?? []) walk(child, depth + 1, seen);
  };
  const seen = new Set<string>();
  for (const s of sessions) if (s.parentId === null || !ids.has(s.parentId)) walk(s, 0, seen);
  for (const s of sessions) walk(s, 0, seen);
  return out;
}

export function ListPage() {
  const [state, setState] = useState<{ home: string; sessions: SessionSummary[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stopped = false;
    const load = (): void => {
      fetchSessions()
        .then((s) => {
          if (stopped) return;
          setState(s);
          setError(null);
        })
        .catch((e: Error) => !stopped && setError(e.message));
    };
    load();
    const timer = setInterval(load, 3000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  if (error !== null && state === null) return html`<p class="problem">${error}</p>`;
  if (state === null) return html`<p class="loading">Loading sessions…</p>`;
  return html`<main class="list-page">
    <h1>Sessions</h1>
    <p class="sub">${state.sessions.length} sessions under ${state.home}</p>
    ${error !== null ? html`<p class="problem">${error}</p>` : null}
    ${
      state.sessions.length === 0
        ? html`<p class="empty">No sessions yet. Run <code>amplifier run "..."</code> and they appear here.</p>`
        : html`<table class="sessions">
          <thead><tr><th>Session</th><th>Status</th><th>Model</th><th>Duration</th><th>Tokens in / out</th><th>Cost</th><th>Tools</th><th>Updated</th></tr></thead>
          <tbody>${rows(state.sessions)}</tbody>
        </table>`
    }
  </main>`;
}
