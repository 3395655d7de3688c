/**
 * Sub-session ids (the reference's `tracing.py`):
 * `<parentSpan16>-<childSpan16>_<agent>`. The parent span is the child span of
 * a parent id of the same shape (so ids of a tree chain up), else 16 zeros (a
 * root id is a UUID); the child span is random; the agent part is the name
 * lower-cased with every run of other characters turned into `-`.
 */
import { randomBytes } from 'node:crypto';

/** What every sub-session id matches. */
export const SUB_SESSION_ID: RegExp = /^[0-9a-f]{16}-[0-9a-f]{16}_[a-z0-9-]+$/;
const SPANS = /^([0-9a-f]{16})-([0-9a-f]{16})_/;

/** The agent part of an id: `Foundation:Explorer` -> `foundation-explorer`; `agent` when nothing is left. */
export function agentSlug(agent: string): string {
  const slug = agent
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? 'agent' : slug;
}

/** A new sub-session id for `agent` under `parentId`. */
export function subSessionId(parentId: string, agent: string): string {
  const parentSpan = SPANS.exec(parentId)?.[2] ?? '0'.repeat(16);
  return `${parentSpan}-${randomBytes(8).toString('hex')}_${agentSlug(agent)}`;
}
