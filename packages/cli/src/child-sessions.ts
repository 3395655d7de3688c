/**
 * Child (agent) sessions on disk, as the reference stores them (B8): flat
 * next to their parent in `<AMPLIFIER_HOME>/projects/<slug>/sessions/<id>/`,
 * the id `<parent16>-<child16>_<agent>` chosen by the delegate tool, a
 * `transcript.jsonl` without system messages and a `metadata.json` with
 * `parent_id`, `agent_name`, `config` (redacted as events.jsonl is), `agent_overlay`,
 * `turn_count`, `self_delegation_depth` and `working_dir`, next to this
 * CLI's own keys. hooks-logging writes the child's `events.jsonl` there.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChildStore, StoredChild } from '@amplifier/bundles';
import type { MountPlan } from '@amplifier/core';
import { CLI_VERSION } from './modules.js';
import { planSummary } from './plan.js';
import { readSessionMetadata, SessionRecord, type SessionStore, storedData, storedText } from './sessions.js';

/** The folder of a session of the project at `cwd`. */
export function sessionDir(store: SessionStore, cwd: string, id: string): string {
  return path.join(store.projectDir(cwd), id);
}

function readRecord(dir: string): SessionRecord | undefined {
  try {
    const raw: unknown = JSON.parse(fs.readFileSync(path.join(dir, 'metadata.json'), 'utf8'));
    const metadata = readSessionMetadata(raw, dir);
    return metadata === undefined ? undefined : new SessionRecord(dir, metadata);
  } catch {
    return undefined;
  }
}

/** Children are stored where their root runs (the project at `cwd`); found there, else in any project. */
export function cliChildStore(store: SessionStore, cwd: string): ChildStore {
  return {
    save(child: StoredChild): void {
      const dir = sessionDir(store, cwd, child.session_id);
      const existing = readRecord(dir);
      const now = new Date().toISOString();
      const first = child.messages.find((m) => m.role === 'user');
      // The task itself, not the parent context the delegate tool puts before it.
      const task = typeof first?.content === 'string' ? first.content.split('[YOUR TASK]').pop() : undefined;
      const name = task === undefined ? null : storedText(task.replace(/\s+/g, ' ').trim()).slice(0, 80);
      const record =
        existing ??
        new SessionRecord(dir, {
          session_id: child.session_id,
          created: now,
          updated: now,
          cwd,
          provider: '',
          model: null,
          plan: {},
          options: { plan_file: null, provider: null, model: null, max_iterations: null },
          turn_count: 0,
          status: 'running',
          name,
          pid: process.pid,
          cli_version: CLI_VERSION,
        });
      const provider = child.config.providers?.[0];
      record.saveMetadata({
        parent_id: child.parent_id,
        provider: provider?.instance_id ?? provider?.module.replace(/^provider-/, '') ?? '',
        plan: planSummary(child.config),
        turn_count: child.turn_count,
        status: child.status === 'success' ? 'completed' : child.status === 'error' ? 'failed' : 'cancelled',
        pid: process.pid,
        ...({
          agent_name: child.agent_name,
          trace_id: child.session_id.split('-')[0],
          config: storedData(child.config as MountPlan),
          agent_overlay: storedData(child.agent_overlay as Record<string, unknown>),
          self_delegation_depth: child.self_delegation_depth,
          delegation_depth: child.delegation_depth,
          spawn_request: storedData(child.request),
          usage: child.usage,
        } as Record<string, unknown>),
      });
      record.rewriteTranscript(child.messages);
    },
    load(sessionId: string): StoredChild | undefined {
      let record = readRecord(sessionDir(store, cwd, sessionId));
      if (record === undefined) record = store.list().find((r) => r.id === sessionId);
      if (record === undefined) return undefined;
      const m = record.metadata as unknown as Record<string, unknown>;
      const number = (v: unknown): number => (typeof v === 'number' ? v : 0);
      const object = (v: unknown): Record<string, unknown> =>
        typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
      return {
        session_id: record.id,
        parent_id: typeof m.parent_id === 'string' ? m.parent_id : '',
        agent_name: typeof m.agent_name === 'string' && m.agent_name !== '' ? m.agent_name : 'self',
        config: object(m.config) as unknown as MountPlan,
        agent_overlay: object(m.agent_overlay),
        turn_count: number(m.turn_count),
        self_delegation_depth: number(m.self_delegation_depth),
        delegation_depth: number(m.delegation_depth),
        status: 'success',
        request: object(m.spawn_request) as StoredChild['request'],
        usage: { input_tokens: 0, output_tokens: 0 },
        messages: record.readTranscript().messages,
      };
    },
  };
}

/** A session's children (its sub-sessions, by `parent_id`), oldest first. */
export function childrenOf(records: readonly SessionRecord[], id: string): SessionRecord[] {
  return records
    .filter((r) => r.metadata.parent_id === id)
    .sort((a, b) => Date.parse(a.metadata.created) - Date.parse(b.metadata.created));
}
