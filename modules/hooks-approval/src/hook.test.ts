/**
 * The hook on a real test coordinator: decisions, the ask flow through core's
 * processHookResult and a fake approval provider, events, audit lines, fail
 * closed, and the reference checklist items (section 13, hooks-approval 1-3).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Coordinator, EventData, HookResult, ToolPreEvent } from '@amplifier/core';
import { dynamicEvent } from '@amplifier/core';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Answer,
  bashCall,
  FakeApproval,
  type Mounted,
  mountApproval,
  readAudit,
  removeTempDirs,
  tempDir,
} from './__fixtures__/fakes.js';
import { argsHash } from './binding.js';
import {
  HOOK_NAME,
  mount,
  ORIGINAL_HOOK_NAME,
  REGISTER_PROVIDER_CAPABILITY,
  VERIFY_HOOK_NAME,
} from './index.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  removeTempDirs();
});

async function setup(
  config: Record<string, unknown> = {},
  answer?: Answer,
  options: { sessionId?: string; dir?: string } = {},
): Promise<Mounted & { approval: FakeApproval | undefined }> {
  const approval = answer === undefined ? undefined : new FakeApproval(answer);
  const mounted = await mountApproval(config, { ...options, ...(approval && { approval }) });
  cleanups.push(mounted.cleanup);
  return { ...mounted, approval };
}

/** What an orchestrator does with tool:pre: emit, then hand a non-continue result to the coordinator. */
async function toolPre(coordinator: Coordinator, data: ToolPreEvent): Promise<HookResult> {
  const result = await coordinator.hooks.emit('tool:pre', data);
  if (result.action === 'continue') return result;
  return coordinator.processHookResult(result, 'tool:pre', String(data.tool_name));
}

describe('reference checklist (section 13, hooks-approval)', () => {
  it('1: a bash `ls -la` call is auto-approved and emits approval:required and approval:granted', async () => {
    const m = await setup();
    const result = await toolPre(m.coordinator, bashCall('ls -la'));
    expect(result.action).toBe('continue');
    expect(m.approvalEvents().map(([name]) => name)).toEqual(['approval:required', 'approval:granted']);
    const [[, required], [, granted]] = m.approvalEvents() as [[string, EventData], [string, EventData]];
    expect(required).toMatchObject({ tool_name: 'bash', action: 'Execute: ls -la', risk_level: 'high' });
    expect(granted).toMatchObject({
      tool_name: 'bash',
      reason: 'Auto-approved by rule',
      tool_call_id: 'call_1',
    });
  });

  it('2: a bash `rm x` with no approval provider is denied with "No approval provider available"', async () => {
    const m = await setup();
    const result = await toolPre(m.coordinator, bashCall('rm x'));
    expect(result).toEqual({ action: 'deny', reason: 'No approval provider available' });
    expect(m.approvalEvents().map(([name]) => name)).toEqual(['approval:required', 'approval:denied']);
    expect(m.approvalEvents()[1]![1]).toMatchObject({ reason: 'No approval provider available' });
  });

  it('3: every decision appends an audit line to <AMPLIFIER_HOME>/audit/approvals.jsonl', async () => {
    const home = tempDir();
    const previous = process.env.AMPLIFIER_HOME;
    process.env.AMPLIFIER_HOME = home;
    try {
      const coordinator = createTestCoordinator({ approval: new FakeApproval('Deny') });
      cleanups.push((await mount(coordinator, {})) as () => unknown);
      await toolPre(coordinator, bashCall('ls', 'c1'));
      await toolPre(coordinator, bashCall('rm x', 'c2'));
      await toolPre(coordinator, {
        tool_name: 'read_file',
        tool_call_id: 'c3',
        tool_input: { file_path: 'a' },
      });
      const records = readAudit(path.join(home, 'audit', 'approvals.jsonl'));
      expect(records.map((r) => [r.tool_call_id, r.decision])).toEqual([
        ['c1', 'allowed'],
        ['c2', 'denied'],
        ['c3', 'allowed'],
      ]);
    } finally {
      if (previous === undefined) delete process.env.AMPLIFIER_HOME;
      else process.env.AMPLIFIER_HOME = previous;
    }
  });
});

describe('ask', () => {
  it('returns ask_user with the exact arguments, the options, timeout and default from config', async () => {
    const m = await setup({ approval_timeout: 42, approval_default: 'deny' }, 'Deny');
    const input = { command: 'rm -rf build', timeout: 30 };
    const result = await m.coordinator.hooks.emit('tool:pre', {
      tool_name: 'bash',
      tool_call_id: 'call_9',
      tool_input: input,
    });
    expect(result).toMatchObject({
      action: 'ask_user',
      approval_options: ['Allow once', 'Allow always', 'Deny'],
      approval_timeout: 42,
      approval_default: 'deny',
    });
    const prompt = result.approval_prompt!;
    expect(prompt).toContain('Tool call needs approval: bash');
    expect(prompt).toContain('Call call_9');
    expect(prompt).toContain(argsHash(input).slice(0, 19));
    expect(prompt).toContain(JSON.stringify(input, null, 2));
    expect(prompt).toContain('"Allow always": bash commands starting with rm (and these exact arguments)');
  });

  it('bounds huge arguments with a marker', async () => {
    const m = await setup({ max_prompt_chars: 1000 }, 'Deny');
    const result = await m.coordinator.hooks.emit('tool:pre', {
      tool_name: 'write_file',
      tool_call_id: 'w1',
      tool_input: { file_path: 'big.txt', content: 'x'.repeat(100_000) },
    });
    const prompt = result.approval_prompt!;
    expect(prompt.length).toBeLessThan(1200);
    expect(prompt).toMatch(/arguments cut: \d+ more characters not shown/);
  });

  it('escapes characters that could disguise the arguments on a terminal', async () => {
    const m = await setup({}, 'Deny');
    const result = await m.coordinator.hooks.emit('tool:pre', {
      tool_name: 'write_file',
      tool_call_id: 'w2',
      tool_input: { file_path: 'evil\u202etxt.sh', content: 'a\u001b[2Jb\u009bc' },
    });
    const prompt = result.approval_prompt!;
    expect(prompt).toContain('evil\\u202etxt.sh');
    expect(prompt).toContain('a\\u001b[2Jb\\u009bc');
    expect(prompt).not.toMatch(/[\u001b\u009b\u202e]/);
  });

  it('"Allow once" runs this call only: the same call again is asked again', async () => {
    const m = await setup({}, 'Allow once');
    expect(await toolPre(m.coordinator, bashCall('make build', 'a1'))).toEqual({ action: 'continue' });
    expect(await toolPre(m.coordinator, bashCall('make build', 'a2'))).toEqual({ action: 'continue' });
    expect(m.approval!.requests).toHaveLength(2);
    const granted = m.approvalEvents().filter(([name]) => name === 'approval:granted');
    expect(granted.map(([, data]) => [data.tool_call_id, data.scope, data.source])).toEqual([
      ['a1', 'once', 'user'],
      ['a2', 'once', 'user'],
    ]);
    expect(fs.existsSync(path.join(m.sessionDir, 'approvals.json'))).toBe(false);
  });

  it('"Deny" refuses with core\'s "User denied" reason; events and audit say denied', async () => {
    const m = await setup({}, 'Deny');
    const result = await toolPre(m.coordinator, bashCall('rm -rf build', 'd1'));
    expect(result.action).toBe('deny');
    expect(result.reason).toMatch(/^User denied: Tool call needs approval: bash/);
    expect(m.approvalEvents().at(-1)).toEqual([
      'approval:denied',
      expect.objectContaining({ reason: 'Denied by user', tool_call_id: 'd1', source: 'user' }),
    ]);
    await m.cleanup();
    expect(readAudit(m.auditFile)).toEqual([
      expect.objectContaining({ tool_call_id: 'd1', action: 'ask', decision: 'denied', answer: 'Deny' }),
    ]);
  });

  it('an answer outside the allow family is a denial (the CLI answers "deny" without a TTY)', async () => {
    const m = await setup({}, 'maybe later');
    expect((await toolPre(m.coordinator, bashCall('rm x'))).action).toBe('deny');
    expect(m.approvalEvents().at(-1)![0]).toBe('approval:denied');
  });

  it('a provider registered through approval.register_provider after mount answers our prompts', async () => {
    const m = await setup();
    const register = m.coordinator.getCapability<(p: FakeApproval) => void>(REGISTER_PROVIDER_CAPABILITY)!;
    const late = new FakeApproval('Allow');
    register(late);
    expect((await toolPre(m.coordinator, bashCall('make'))).action).toBe('continue');
    expect(late.requests).toHaveLength(1);
    expect(m.approvalEvents().at(-1)).toEqual([
      'approval:granted',
      expect.objectContaining({ scope: 'once' }),
    ]);
  });

  it('a provider the app swaps in directly is wrapped at the next ask', async () => {
    const m = await setup({}, 'Deny');
    const swapped = new FakeApproval('Allow always');
    m.coordinator.approval = swapped;
    expect((await toolPre(m.coordinator, bashCall('make'))).action).toBe('continue');
    expect(m.approvalEvents().at(-1)).toEqual([
      'approval:granted',
      expect.objectContaining({ scope: 'session' }),
    ]);
  });

  it('requests that are not ours pass through the wrapped provider unchanged', async () => {
    const m = await setup({}, (request) => (request.prompt === 'other hook?' ? 'allow' : 'deny'));
    const result = await m.coordinator.processHookResult(
      { action: 'ask_user', approval_prompt: 'other hook?' },
      'tool:pre',
      'other',
    );
    expect(result).toEqual({ action: 'continue' });
    expect(m.approvalEvents()).toEqual([]);
  });

  it('a failing provider: the call is refused and the audit says error', async () => {
    const m = await setup({}, () => {
      throw new Error('display gone');
    });
    await expect(toolPre(m.coordinator, bashCall('rm x', 'e1'))).rejects.toThrow('display gone');
    await m.cleanup();
    expect(readAudit(m.auditFile)).toEqual([
      expect.objectContaining({
        tool_call_id: 'e1',
        decision: 'error',
        approved: false,
        reason: 'Approval system error: display gone',
      }),
    ]);
  });
});

describe('timeouts', () => {
  it('a person who never answers: the kernel times out, approval_default (deny) applies, audited as timeout', async () => {
    const m = await setup({ approval_timeout: 0.05 }, 'never');
    const result = await toolPre(m.coordinator, bashCall('rm x', 't1'));
    expect(result.action).toBe('deny');
    expect(result.reason).toMatch(/^Approval timeout - denied by default: /);
    await m.cleanup();
    expect(readAudit(m.auditFile)).toEqual([
      expect.objectContaining({
        tool_call_id: 't1',
        action: 'ask',
        decision: 'timeout',
        approved: false,
        reason: 'Approval request timed out (approval_default: deny)',
      }),
    ]);
    expect(m.approvalEvents().map(([name]) => name)).toEqual(['approval:required', 'approval:denied']);
  });

  it('approval_default allow: a timeout allows, audited as timeout (approved)', async () => {
    const m = await setup({ approval_timeout: 0.05, approval_default: 'allow' }, 'never');
    expect((await toolPre(m.coordinator, bashCall('make', 't2'))).action).toBe('continue');
    await m.cleanup();
    expect(readAudit(m.auditFile)).toEqual([
      expect.objectContaining({ tool_call_id: 't2', decision: 'timeout', approved: true, scope: 'once' }),
    ]);
  });

  it('a cancellation while waiting is audited as cancelled', async () => {
    const m = await setup({}, 'never');
    const pending = toolPre(m.coordinator, bashCall('rm x', 'k1'));
    await m.approval!.nextRequest();
    await m.coordinator.requestCancel({ immediate: true });
    expect((await pending).reason).toMatch(/^Cancelled while waiting for approval/);
    await m.cleanup();
    expect(readAudit(m.auditFile)).toEqual([
      expect.objectContaining({ tool_call_id: 'k1', decision: 'cancelled' }),
    ]);
  });
});

describe('binding to the call id and the exact arguments', () => {
  /** A later tool:pre hook (priority 50) that rewrites the command. */
  function rewriteCommand(coordinator: Coordinator, to: string): void {
    coordinator.hooks.register(
      'tool:pre',
      (_event, data) => ({ action: 'modify', data: { ...data, tool_input: { command: to } } }),
      { priority: 50, name: 'rewriter' },
    );
  }

  it('input modified after the approval check is refused, and the person is never asked', async () => {
    const m = await setup({}, 'Allow always');
    rewriteCommand(m.coordinator, 'rm -rf /');
    const result = await toolPre(m.coordinator, bashCall('make build', 'm1'));
    expect(result.action).toBe('deny');
    expect(result.reason).toContain('a later tool:pre hook modified call m1 after the approval check');
    expect(m.approval!.requests).toEqual([]);
    await m.cleanup();
    expect(readAudit(m.auditFile)).toEqual([
      expect.objectContaining({ tool_call_id: 'm1', decision: 'invalidated', source: 'modified' }),
    ]);
  });

  it('an auto-allowed call modified into something the rules do not allow is refused', async () => {
    const m = await setup();
    rewriteCommand(m.coordinator, 'ls; rm -rf ~');
    expect((await toolPre(m.coordinator, bashCall('ls', 'm2'))).action).toBe('deny');
    expect(m.approvalEvents().at(-1)).toEqual([
      'approval:denied',
      expect.objectContaining({ tool_call_id: 'm2', source: 'modified' }),
    ]);
  });

  it('an auto-allowed call modified into something the rules allow on its own is re-checked and runs', async () => {
    const m = await setup();
    rewriteCommand(m.coordinator, 'ls -l');
    expect((await toolPre(m.coordinator, bashCall('ls -la', 'm3'))).action).toBe('continue');
    await m.cleanup();
    expect(readAudit(m.auditFile).map((r) => [r.decision, r.source, r.args_hash])).toEqual([
      ['allowed', 'rule', argsHash({ command: 'ls -la' })],
      ['allowed', 'modified', argsHash({ command: 'ls -l' })],
    ]);
  });

  it('input changed by an earlier hook is refused when it must be asked (the approval could not bind to what runs)', async () => {
    const m = await setup({}, 'Allow once');
    m.coordinator.hooks.register(
      'tool:pre',
      (_event, data) => ({ action: 'modify', data: { ...data, tool_input: { command: 'make deploy' } } }),
      { priority: -50 },
    );
    const asked = await toolPre(m.coordinator, bashCall('make test', 'e1'));
    expect(asked.action).toBe('deny');
    expect(asked.reason).toContain(
      'an earlier tool:pre hook changed the arguments of call e1 before the approval check',
    );
    expect(m.approval!.requests).toEqual([]);
    // Auto-decisions are made on the input that runs: `continue` carries the modified data on.
    const allowed = await m.coordinator.hooks.emit('tool:pre', {
      tool_name: 'read_file',
      tool_call_id: 'e2',
      tool_input: { file_path: 'a' },
    });
    expect(allowed).toMatchObject({ action: 'continue', data: { tool_input: { command: 'make deploy' } } });
  });

  it('the same arguments in another key order are the same arguments; a changed call id is refused', async () => {
    const m = await setup();
    m.coordinator.hooks.register(
      'tool:pre',
      (_event, data) => ({
        action: 'modify',
        data: { ...data, tool_input: { timeout: 5, file_path: 'a' } },
      }),
      { priority: 50 },
    );
    const same = await toolPre(m.coordinator, {
      tool_name: 'read_file',
      tool_call_id: 'r1',
      tool_input: { file_path: 'a', timeout: 5 },
    });
    expect(same.action).toBe('continue');
    m.coordinator.hooks.register(
      'tool:pre',
      (_event, data) => ({ action: 'modify', data: { ...data, tool_call_id: 'x' } }),
      {
        priority: 60,
      },
    );
    const moved = await toolPre(m.coordinator, {
      tool_name: 'read_file',
      tool_call_id: 'r2',
      tool_input: {},
    });
    expect(moved.action).toBe('deny');
    expect(moved.reason).toContain('cannot be matched to its approval check');
  });
});

describe('session scope', () => {
  it('"Allow always" remembers the exact arguments in <session dir>/approvals.json', async () => {
    const m = await setup({}, 'Allow always');
    const call = { tool_name: 'write_file', tool_input: { file_path: 'a.txt', content: 'x' } };
    expect((await toolPre(m.coordinator, { ...call, tool_call_id: 's1' })).action).toBe('continue');
    expect((await toolPre(m.coordinator, { ...call, tool_call_id: 's2' })).action).toBe('continue');
    m.approval!.answer = 'Deny';
    const other = {
      tool_name: 'write_file',
      tool_call_id: 's3',
      tool_input: { file_path: 'b.txt', content: 'x' },
    };
    expect((await toolPre(m.coordinator, other)).action).toBe('deny');
    expect(m.approval!.requests).toHaveLength(2); // s2 was not asked
    const saved = JSON.parse(fs.readFileSync(path.join(m.sessionDir, 'approvals.json'), 'utf8'));
    expect(saved).toMatchObject({
      version: 1,
      session_id: 'test-session',
      grants: [{ tool: 'write_file', args_hash: argsHash(call.tool_input), tool_call_id: 's1' }],
    });
    expect(m.approvalEvents().filter(([n]) => n === 'approval:granted')[1]![1]).toMatchObject({
      tool_call_id: 's2',
      source: 'grant',
      scope: 'session',
    });
  });

  it('for bash, "Allow always" covers the same command prefixes and nothing else', async () => {
    const m = await setup({}, 'Allow always');
    expect((await toolPre(m.coordinator, bashCall('npm test && git status', 'p1'))).action).toBe('continue');
    m.approval!.answer = 'Deny';
    expect((await toolPre(m.coordinator, bashCall('npm test -- --watch', 'p2'))).action).toBe('continue');
    expect((await toolPre(m.coordinator, bashCall('git status -s; npm test', 'p3'))).action).toBe('continue');
    expect((await toolPre(m.coordinator, bashCall('npm install', 'p4'))).action).toBe('deny');
    expect((await toolPre(m.coordinator, bashCall('npm test && rm -rf x', 'p5'))).action).toBe('deny');
    expect(m.approval!.requests.map((r) => r.prompt.split('\n')[1])).toEqual([
      expect.stringContaining('p1'),
      expect.stringContaining('p4'),
      expect.stringContaining('p5'),
    ]);
  });

  it('a grant never overrides a deny rule', async () => {
    const m = await setup(
      { rules: [{ tool: 'bash', when: { command: '*--force*' }, action: 'deny' }] },
      'Allow always',
    );
    await toolPre(m.coordinator, bashCall('git push', 'g1'));
    expect((await toolPre(m.coordinator, bashCall('git push', 'g2'))).action).toBe('continue');
    expect((await toolPre(m.coordinator, bashCall('git push --force', 'g3'))).action).toBe('deny');
  });

  it('a resumed session (same id, same session directory) has its grants again', async () => {
    const dir = tempDir();
    const first = await setup({}, 'Allow always', { dir, sessionId: 'resume-me' });
    await toolPre(first.coordinator, bashCall('cargo build --release', 'r1'));
    await first.cleanup();

    const resumed = await setup({}, 'Deny', { dir, sessionId: 'resume-me' });
    expect((await toolPre(resumed.coordinator, bashCall('cargo build', 'r2'))).action).toBe('continue');
    expect(resumed.approval!.requests).toEqual([]);
    expect(resumed.approvalEvents().at(-1)![1]).toMatchObject({ source: 'grant', tool_call_id: 'r2' });
  });

  it('without session.directory the grants live in <AMPLIFIER_HOME>/projects/<slug>/sessions/<id>/', async () => {
    const home = tempDir();
    const previous = process.env.AMPLIFIER_HOME;
    process.env.AMPLIFIER_HOME = home;
    try {
      const approval = new FakeApproval('Allow always');
      const m = await mountApproval({}, { approval, sessionDirectory: false, sessionId: 'abc/../1' });
      cleanups.push(m.cleanup);
      m.coordinator.registerCapability('session.working_dir', '/srv/my app');
      await toolPre(m.coordinator, bashCall('make'));
      const file = path.join(home, 'projects', '-srv-my app', 'sessions', 'abc_.._1', 'approvals.json');
      expect(JSON.parse(fs.readFileSync(file, 'utf8')).grants).toHaveLength(1);
    } finally {
      if (previous === undefined) delete process.env.AMPLIFIER_HOME;
      else process.env.AMPLIFIER_HOME = previous;
    }
  });

  it('an unreadable approvals.json is reported and ignored (nothing is granted)', async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'session'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'session', 'approvals.json'), '{ not json');
    const m = await setup({}, 'Deny', { dir });
    const warnings: string[] = [];
    m.coordinator.logger.warn = (message: string) => warnings.push(message);
    expect((await toolPre(m.coordinator, bashCall('make'))).action).toBe('deny');
    expect(warnings.join('\n')).toContain('ignoring unreadable session grants');
  });
});

describe('audit', () => {
  it('each record has the call, the args hash, a redacted bounded summary, the decision and the rule', async () => {
    const m = await setup({ rules: [{ tool: 'deploy', action: 'deny', reason: 'not from an agent' }] });
    await toolPre(m.coordinator, {
      tool_name: 'deploy',
      tool_call_id: 'x1',
      tool_input: { target: 'prod', api_key: 'sk-secret-value', notes: 'n'.repeat(5000) },
    });
    await m.cleanup();
    const text = fs.readFileSync(m.auditFile, 'utf8');
    expect(text).not.toContain('sk-secret-value');
    const [record] = readAudit(m.auditFile);
    expect(record).toEqual({
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*\+00:00$/),
      session_id: 'test-session',
      tool_call_id: 'x1',
      tool: 'deploy',
      args_hash: argsHash({ target: 'prod', api_key: 'sk-secret-value', notes: 'n'.repeat(5000) }),
      args: {
        target: 'prod',
        api_key: '[REDACTED]',
        notes: expect.stringContaining('(truncated 4800 chars)'),
      },
      action: 'deny',
      decision: 'denied',
      approved: false,
      scope: null,
      source: 'rule',
      rule: { index: 0, source: 'config', tool: 'deploy', action: 'deny', reason: 'not from an agent' },
      reason: 'Auto-denied by rule #0 deploy → deny (not from an agent)',
    });
  });

  it('a failing audit write is reported once and never stops a decision', async () => {
    const dir = tempDir();
    const blocker = path.join(dir, 'file');
    fs.writeFileSync(blocker, '');
    const m = await setup({ audit_file: path.join(blocker, 'audit.jsonl') });
    const warnings: string[] = [];
    m.coordinator.logger.warn = (message: string) => warnings.push(message);
    expect((await toolPre(m.coordinator, bashCall('ls', 'f1'))).action).toBe('continue');
    expect((await toolPre(m.coordinator, bashCall('pwd', 'f2'))).action).toBe('continue');
    expect(warnings.filter((w) => w.includes('cannot write the audit log'))).toHaveLength(1);
  });

  it('audit: false writes nothing', async () => {
    const m = await setup({ audit: false });
    await toolPre(m.coordinator, bashCall('ls'));
    await m.cleanup();
    expect(fs.existsSync(m.auditFile)).toBe(false);
  });
});

describe('fail closed and lifecycle', () => {
  it('registers the emitted-input check first, `hooks-approval` at -10 and the final-input check last on tool:pre', async () => {
    const m = await setup();
    m.coordinator.hooks.register('tool:pre', () => undefined, { priority: 0, name: 'other' });
    expect(m.coordinator.hooks.listHandlers('tool:pre')['tool:pre']).toEqual([
      ORIGINAL_HOOK_NAME,
      HOOK_NAME,
      'other',
      VERIFY_HOOK_NAME,
    ]);
  });

  it('an internal error denies with a reason (arguments that cannot be hashed)', async () => {
    const m = await setup();
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const result = await toolPre(m.coordinator, {
      tool_name: 'read_file',
      tool_call_id: 'i1',
      tool_input: cyclic,
    });
    expect(result.action).toBe('deny');
    expect(result.reason).toMatch(/^hooks-approval: internal error, call refused: /);
    expect(m.approvalEvents().at(-1)).toEqual([
      'approval:denied',
      expect.objectContaining({ source: 'internal_error', tool_call_id: 'i1' }),
    ]);
  });

  it('odd event data is refused, not passed', async () => {
    const m = await setup();
    // `dynamicEvent`: untyped, as a JavaScript emitter could send it.
    expect((await m.coordinator.hooks.emit(dynamicEvent('tool:pre'), {})).action).toBe('deny');
    expect(
      (await m.coordinator.hooks.emit(dynamicEvent('tool:pre'), { tool_name: 'bash', tool_input: 'ls' }))
        .action,
    ).toBe('deny');
  });

  it('cleanup unregisters the handlers, puts the app provider back and removes the capability', async () => {
    const approval = new FakeApproval('Deny');
    const m = await mountApproval({}, { approval });
    expect(m.coordinator.approval).not.toBe(approval);
    await m.cleanup();
    await m.cleanup();
    expect(m.coordinator.approval).toBe(approval);
    expect(m.coordinator.hooks.listHandlers('tool:pre')['tool:pre']).toEqual([]);
    expect(m.coordinator.getCapability(REGISTER_PROVIDER_CAPABILITY)).toBeUndefined();
  });

  it('a question that was never asked (another hook asked first) is audited as abandoned at cleanup', async () => {
    const m = await setup({}, 'allow');
    m.coordinator.hooks.register('tool:pre', () => ({ action: 'ask_user', approval_prompt: 'mine first' }), {
      priority: -100,
    });
    expect((await toolPre(m.coordinator, bashCall('make', 'n1'))).action).toBe('continue');
    await m.cleanup();
    expect(readAudit(m.auditFile)).toEqual([
      expect.objectContaining({ tool_call_id: 'n1', decision: 'abandoned' }),
    ]);
  });
});

describe('config is read through own properties only', () => {
  const loosening = {
    default_action: 'allow',
    default_rules: false,
    approval_default: 'allow',
    rules: [{ tool: '*', action: 'allow' }],
    shell_tools: [],
  };

  it('an own `__proto__` key is an unknown key: warned about, no rule or default changes; inside a rule it is refused', async () => {
    const logger = new RecordingLogger();
    const coordinator = createTestCoordinator({ logger });
    const plan = JSON.parse(`{"__proto__": ${JSON.stringify(loosening)}}`);
    plan.audit_file = path.join(tempDir(), 'a.jsonl');
    cleanups.push((await mount(coordinator, plan)) as () => unknown);
    expect(logger.problemsSince()).toEqual(["hooks-approval: unknown config key '__proto__' is ignored"]);
    expect(await toolPre(coordinator, bashCall('rm -rf /', 'p1'))).toEqual({
      action: 'deny',
      reason: 'No approval provider available',
    });
    const rule = JSON.parse('{"__proto__": {"tool": "*", "action": "allow"}, "tool": "x", "action": "deny"}');
    const other = createTestCoordinator({});
    await expect(mount(other, { rules: [rule] })).rejects.toThrow(/'rules\[0\]\.__proto__' is refused/);
    expect(other.hooks.listHandlers('tool:pre')['tool:pre'] ?? []).toEqual([]);
  });

  it('inherited keys are never read: default_action, the default rules and the rules stay as they are', async () => {
    const coordinator = createTestCoordinator({});
    const config = Object.assign(Object.create(loosening), { audit_file: path.join(tempDir(), 'a.jsonl') });
    cleanups.push((await mount(coordinator, config)) as () => unknown);
    // default rule 4 asks for bash; without a provider that is a denial, never an allow.
    expect(await toolPre(coordinator, bashCall('rm -rf /', 'p1'))).toEqual({
      action: 'deny',
      reason: 'No approval provider available',
    });
    const unknownTool = await toolPre(coordinator, {
      tool_name: 'x_tool',
      tool_call_id: 'p2',
      tool_input: {},
    });
    expect(unknownTool.action).toBe('deny');
    // A rule object whose fields are inherited is not a rule.
    const inheritedRule = Object.create({ tool: '*', action: 'allow' });
    await expect(mount(createTestCoordinator({}), { rules: [inheritedRule] })).rejects.toThrow(
      /rules\[0\]\.tool is required/,
    );
  });
});
