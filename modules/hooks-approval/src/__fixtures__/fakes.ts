/**
 * Test helpers: an approval provider that answers deterministically (or never),
 * temp directories, audit-file reading, and a mounted hook on a real test
 * coordinator with a recorder for the approval events.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ApprovalProvider, ApprovalRequest, Cleanup, EventData, ToolPreEvent } from '@amplifier/core';
import { createTestCoordinator, EventRecorder, type TestCoordinator } from '@amplifier/testing';
import type { AuditRecord } from '../audit.js';
import { mount } from '../index.js';

export type Answer = string | 'never' | ((request: ApprovalRequest) => string | Promise<string>);

/** An ApprovalProvider that gives `answer` to every request and records what it was asked. */
export class FakeApproval implements ApprovalProvider {
  readonly requests: ApprovalRequest[] = [];
  answer: Answer;
  /** Resolves with each request as it arrives. */
  #waiters: ((request: ApprovalRequest) => void)[] = [];

  constructor(answer: Answer) {
    this.answer = answer;
  }

  async requestApproval(request: ApprovalRequest, options: { signal?: AbortSignal } = {}): Promise<string> {
    this.requests.push(request);
    for (const waiter of this.#waiters.splice(0)) waiter(request);
    const answer = this.answer;
    if (answer === 'never') {
      // A person who never answers: only the kernel's abort ends the wait.
      return new Promise<string>((_resolve, reject) => {
        options.signal?.addEventListener('abort', () => reject(options.signal?.reason), { once: true });
      });
    }
    return typeof answer === 'function' ? answer(request) : answer;
  }

  nextRequest(): Promise<ApprovalRequest> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

const made: string[] = [];

/** A fresh temp directory, removed by `removeTempDirs`. */
export function tempDir(prefix = 'hooks-approval-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** Every audit record in `file` (none when it does not exist); each line must be one JSON object. */
export function readAudit(file: string): AuditRecord[] {
  if (!fs.existsSync(file)) return [];
  const text = fs.readFileSync(file, 'utf8');
  if (text === '') return [];
  if (!text.endsWith('\n'))
    throw new Error(`audit file does not end with a newline: ${JSON.stringify(text)}`);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as AuditRecord);
}

export const APPROVAL_EVENTS: readonly string[] = [
  'approval:required',
  'approval:granted',
  'approval:denied',
];

export interface Mounted {
  coordinator: TestCoordinator;
  cleanup: Cleanup;
  recorder: EventRecorder;
  /** The approval events, as [name, data]. */
  approvalEvents(): [string, EventData][];
  dir: string;
  auditFile: string;
  sessionDir: string;
}

/**
 * A test coordinator (session `test-session`) with `session.directory` set
 * to a temp dir, the hook mounted with its audit file in that temp dir, and
 * the approval events recorded.
 */
export async function mountApproval(
  config: Record<string, unknown> = {},
  options: { approval?: ApprovalProvider; sessionId?: string; dir?: string; sessionDirectory?: boolean } = {},
): Promise<Mounted> {
  const dir = options.dir ?? tempDir();
  const sessionDir = path.join(dir, 'session');
  const auditFile = path.join(dir, 'audit.jsonl');
  const coordinator = createTestCoordinator({
    ...(options.approval && { approval: options.approval }),
    ...(options.sessionId && { sessionId: options.sessionId }),
  });
  if (options.sessionDirectory !== false) coordinator.registerCapability('session.directory', sessionDir);
  const recorder = new EventRecorder();
  recorder.attach(coordinator.hooks, APPROVAL_EVENTS);
  const cleanup = (await mount(coordinator, { audit_file: auditFile, ...config })) as Cleanup;
  return {
    coordinator,
    cleanup,
    recorder,
    approvalEvents: () => recorder.getEvents().map(([name, data]) => [name, data]),
    dir,
    auditFile,
    sessionDir,
  };
}

/** The data of a bash `tool:pre` event. */
export function bashCall(command: string, id = 'call_1'): ToolPreEvent {
  return { tool_name: 'bash', tool_call_id: id, tool_input: { command } };
}
