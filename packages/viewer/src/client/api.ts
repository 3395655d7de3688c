/** The server's JSON API, by URLs relative to the page (the viewer lives under a secret base path). */
import type { SessionDetail, SessionSummary } from '../model/summary.js';

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { headers: { accept: 'application/json' } });
  const body = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(body.error ?? `${url}: HTTP ${response.status}`);
  return body;
}

export function fetchSessions(): Promise<{ home: string; sessions: SessionSummary[] }> {
  return getJson('api/sessions');
}

export function fetchSession(id: string): Promise<SessionDetail> {
  return getJson(`api/sessions/${encodeURIComponent(id)}`);
}

export function sessionHref(id: string): string {
  return `#/session/${encodeURIComponent(id)}`;
}
