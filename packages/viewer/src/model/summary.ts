/** What the list shows of a session, and what the session page gets: plain JSON, shared by server and page. */
export interface SessionSummary {
  id: string;
  project: string;
  parentId: string | null;
  /** The agent of an agent session (`agent_name`). */
  agent: string | null;
  name: string | null;
  /** running, completed, cancelled, failed, interrupted (running, its process gone), unknown. */
  status: string;
  model: string | null;
  provider: string | null;
  cwd: string | null;
  created: string | null;
  updated: string | null;
  /** From the first to the last event (or created → updated without events). */
  durationMs: number | null;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** US dollars; null when no call reported a cost. */
  cost: number | null;
  providerCalls: number;
  toolCalls: number;
  events: number;
  /** Who wrote it: this project's CLI, or Amplifier (Python) by the keys its metadata has. */
  writer: 'amplifier-ts' | 'amplifier';
  /** What could not be read, in a sentence each. */
  problems: string[];
}

export interface SessionDetail {
  summary: SessionSummary;
  metadata: Record<string, unknown> | null;
  messages: unknown[];
  events: unknown[];
  /** Where the live view goes on reading each file. */
  offsets: { events: number; transcript: number };
  children: SessionSummary[];
}

/** One message of the live stream (`/api/sessions/<id>/live`, server-sent events). */
export type LiveUpdate =
  | { kind: 'events'; records: unknown[]; offset: number }
  | { kind: 'messages'; messages: unknown[]; offset: number }
  | { kind: 'summary'; summary: SessionSummary }
  | { kind: 'problem'; text: string };
