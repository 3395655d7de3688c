/**
 * Pairs the tool calls of a transcript with the calls the event log
 * recorded: by call id where the log has one (this project's loop), else in
 * order among calls of the same tool (Python Amplifier's tool events carry
 * no call id).
 */
import type { ToolRun } from './session-fold.js';

export interface CallRef {
  id: string;
  name: string;
}

export function matchToolCalls(
  transcript: readonly CallRef[],
  logged: readonly ToolRun[],
): Map<string, ToolRun> {
  const out = new Map<string, ToolRun>();
  const byId = new Map(logged.map((c) => [c.id, c]));
  const used = new Set<ToolRun>();
  const pending: CallRef[] = [];
  for (const ref of transcript) {
    const hit = byId.get(ref.id);
    if (hit !== undefined && !used.has(hit)) {
      out.set(ref.id, hit);
      used.add(hit);
    } else {
      pending.push(ref);
    }
  }
  const free = logged.filter((c) => !used.has(c));
  for (const ref of pending) {
    const index = free.findIndex((c) => c.name === ref.name);
    if (index === -1) continue;
    out.set(ref.id, free[index]!);
    free.splice(index, 1);
  }
  return out;
}
