import fs from 'node:fs';
import path from 'node:path';
import { AmplifierError } from '@amplifier/core';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { removeTempDirs, tempDir } from './__fixtures__/fakes.js';
import { type ApprovalConfigInput, mount, parseConfig, type RuleAction, type RuleConfig } from './index.js';

afterEach(() => removeTempDirs());

describe('config policy', () => {
  it('an unknown key warns once and the hook mounts', async () => {
    const logger = new RecordingLogger();
    const coordinator = createTestCoordinator({ logger });
    const dir = tempDir();
    const first = await mount(coordinator, { audit_file: path.join(dir, 'a.jsonl'), colour: 'red' });
    await first();
    const second = await mount(coordinator, { audit_file: path.join(dir, 'a.jsonl'), colour: 'blue' });
    expect(coordinator.hooks.listHandlers('tool:pre')['tool:pre']).toHaveLength(3);
    await second();
    expect(logger.problemsSince()).toEqual(["hooks-approval: unknown config key 'colour' is ignored"]);
  });

  it('a misspelt deny rule is refused with the reason, and the refusal stops the session (required)', async () => {
    for (const config of [
      { rules: [{ tool: 'bash', when: { command: 'rm*' }, acion: 'deny', action: 'allow' }] },
      { rulse: [{ tool: 'bash', action: 'deny' }] },
      { tools: { bash: { require_aproval: true } } },
    ]) {
      let error: unknown;
      try {
        parseConfig(config);
      } catch (caught) {
        error = caught;
      }
      expect(AmplifierError.is(error, 'CONFIG_REFUSED')).toBe(true);
      expect((error as { required: boolean }).required).toBe(true);
      expect((error as Error).message).toContain(
        'could approve a call the config meant to ask about or deny',
      );
    }
  });

  it('the reference keys: tools.<name>.require_approval asks, default_timeout, audit.enabled', () => {
    const config = parseConfig({
      rules: [{ tool: 'read_file', action: 'allow' }],
      tools: { read_file: { require_approval: true }, glob: { require_approval: false } },
      default_timeout: 30,
      audit: { enabled: false },
      default_action: 'deny',
    });
    expect(config.rules).toEqual([
      { tool: 'read_file', action: 'allow' },
      { tool: 'read_file', action: 'ask', reason: 'tools.read_file.require_approval is true' },
    ]);
    expect(config.approval_timeout).toBe(30);
    expect(config.audit).toBe(false);
    expect(parseConfig({ default_timeout: null }).approval_timeout).toBe(300);
  });

  it('tools.<name>.require_approval makes a read-only tool ask (no provider: denied)', async () => {
    const dir = tempDir();
    const coordinator = createTestCoordinator({});
    const cleanup = await mount(coordinator, {
      audit_file: path.join(dir, 'a.jsonl'),
      tools: { read_file: { require_approval: true } },
    });
    const data = { tool_name: 'read_file', tool_call_id: 'c1', tool_input: { file_path: 'x' } };
    const result = await coordinator.hooks.emit('tool:pre', data);
    // The default rules allow read_file; asked for, and with no one to ask, it is denied.
    expect(result).toMatchObject({ action: 'deny', reason: 'No approval provider available' });
    await cleanup();
    expect(fs.existsSync(path.join(dir, 'a.jsonl'))).toBe(true);
  });

  it('policy_driven_only is accepted with a warning that it is not honoured', () => {
    const logger = new RecordingLogger();
    parseConfig({ policy_driven_only: true }, {}, logger);
    expect(logger.problemsSince()).toEqual([
      expect.stringMatching(/^hooks-approval: config key 'policy_driven_only' is accepted and not honoured/),
    ]);
  });
});

describe('the config type is derived from CONFIG_SCHEMA (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile', () => {
    expectTypeOf<RuleAction>().toEqualTypeOf<'allow' | 'deny' | 'ask'>();
    expectTypeOf<RuleConfig>().toEqualTypeOf<{
      tool: string | string[];
      action: RuleAction;
      when?: Record<string, string>;
      reason?: string;
    }>();
    // @ts-expect-error a rule's action is allow, deny or ask
    const bad: ApprovalConfigInput = { rules: [{ tool: 'bash', action: 'maybe' }] };
    expect(() => parseConfig(bad)).toThrow(/action/);
  });
});
