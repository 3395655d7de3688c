/** The spawn policy (B5): the child's plan from the parent's, the spawn rule, inheritance and the agent overlay. */
import { type MountPlan, parseMountPlan } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { parseAgentText } from './agents.js';
import { childPlan, globMatch, mergeApprovalConfig } from './spawn-policy.js';

const parent: MountPlan = parseMountPlan({
  session: {
    orchestrator: { module: 'loop-basic', config: { max_iterations: 20 } },
    context: 'context-simple',
  },
  providers: [
    { module: 'provider-openai', config: { default_model: 'gpt-5', priority: 1 } },
    { module: 'provider-anthropic', config: { default_model: 'claude-sonnet-4', api_key: 'k' } },
  ],
  tools: [
    { module: 'tool-filesystem', config: { allowed_write_paths: ['.'], denied: ['a', 'b'] } },
    { module: 'tool-bash' },
    { module: 'tool-delegate' },
  ],
  hooks: [
    { module: 'hooks-logging' },
    {
      module: 'hooks-approval',
      config: {
        rules: [
          { tool: 'bash', when: { command: 'rm*' }, action: 'deny' },
          { tool: 'bash', when: { command: 'git push*' }, action: 'ask' },
        ],
      },
    },
  ],
  agents: { helper: { description: 'h' }, other: { description: 'o' } },
});

const agent = parseAgentText(
  [
    '---',
    'meta: { name: helper, description: Helps }',
    'tools:',
    '  - module: tool-filesystem',
    '    config: { denied: [c] }',
    '  - module: tool-web',
    'hooks:',
    '  - module: hooks-approval',
    '    config:',
    '      default_action: allow',
    '      rules:',
    '        - { tool: bash, when: { command: "rm -rf /tmp/x" }, action: allow }',
    '        - { tool: bash, when: { command: "curl*" }, action: deny }',
    'session:',
    '  orchestrator: { config: { max_iterations: 5, extended_thinking: true } }',
    'provider_preferences:',
    '  - { provider: gemini, model: gemini-pro }',
    '  - { provider: anthropic, model: claude-haiku-* }',
    'agents: [other]',
    '---',
    'Be helpful.',
  ].join('\n'),
  '/agents/helper.md',
);

const modules = (list: MountPlan['tools']): string[] => (list ?? []).map((m) => m.module);

describe('childPlan', () => {
  it('self: the parent plan, minus what the caller excludes', () => {
    const { plan } = childPlan({ parent, toolInheritance: { exclude: ['tool-delegate'] } });
    expect(modules(plan.tools)).toEqual(['tool-filesystem', 'tool-bash']);
    expect(modules(plan.hooks)).toEqual(['hooks-logging', 'hooks-approval']);
    expect(plan.session).toEqual(parent.session);
    expect(Object.keys(plan.agents ?? {})).toEqual(['helper', 'other']);
    expect(() => parseMountPlan(plan)).not.toThrow();
  });

  it("the agent's tools always survive; its config deep-merges with lists replaced", () => {
    const { plan } = childPlan({ parent, agent, toolInheritance: { inherit: ['tool-bash'] } });
    expect(modules(plan.tools)).toEqual(['tool-filesystem', 'tool-bash', 'tool-web']);
    const merged = childPlan({ parent, agent }).plan.tools?.find((t) => t.module === 'tool-filesystem');
    expect(merged?.config).toEqual({ allowed_write_paths: ['.'], denied: ['c'] });
  });

  it("the bundle's spawn rule: tools replaces the list, exclude_tools filters it", () => {
    expect(modules(childPlan({ parent, spawn: { tools: ['tool-bash'] } }).plan.tools)).toEqual(['tool-bash']);
    expect(modules(childPlan({ parent, spawn: { exclude_tools: ['tool-bash'] } }).plan.tools)).toEqual([
      'tool-filesystem',
      'tool-delegate',
    ]);
  });

  it('hooks-approval is never left out, and every parent deny and ask still applies', () => {
    const { plan } = childPlan({
      parent,
      agent,
      hookInheritance: { exclude: ['hooks-approval', 'hooks-logging'] },
    });
    expect(modules(plan.hooks)).toEqual(['hooks-approval']);
    const config = plan.hooks?.[0]?.config as {
      rules: { action: string; when: unknown }[];
      default_action: string;
    };
    expect(config.rules.map((r) => r.action)).toEqual(['deny', 'ask', 'deny']);
    // The agent's allow for `rm -rf /tmp/x` is dropped (the parent asks by default), and so is its default allow.
    expect(config.default_action).toBe('ask');
  });

  it('session overlay, then the caller orchestrator config (the parent wins), then metadata', () => {
    const { plan } = childPlan({
      parent,
      agent,
      orchestratorConfig: { max_iterations: 20 },
      sessionMetadata: { agent_name: 'helper', tool_call_id: 't1' },
    });
    expect(plan.session.orchestrator).toEqual({
      module: 'loop-basic',
      config: { max_iterations: 20, extended_thinking: true },
    });
    expect(plan.session.metadata).toEqual({ agent_name: 'helper', tool_call_id: 't1' });
    expect(Object.keys(plan.agents ?? {})).toEqual(['other']);
  });

  it('providers: caller, else agent, else parent; the winner gets priority 0 and a resolved model', () => {
    const byAgent = childPlan({
      parent,
      agent,
      models: { anthropic: ['claude-sonnet-4', 'claude-haiku-4-5'] },
    });
    expect(byAgent.provider).toEqual({ name: 'anthropic', model: 'claude-haiku-4-5' });
    expect(byAgent.plan.providers?.[0]).toEqual({
      module: 'provider-anthropic',
      config: { default_model: 'claude-haiku-4-5', api_key: 'k', priority: 0 },
    });
    const byCaller = childPlan({
      parent,
      agent,
      providerPreferences: [{ provider: 'openai', model: 'gpt-5-mini' }],
    });
    expect(byCaller.provider).toEqual({ name: 'openai', model: 'gpt-5-mini' });
    expect(byCaller.plan.providers?.[0]?.config).toEqual({ default_model: 'gpt-5-mini', priority: 0 });
    const none = childPlan({ parent });
    expect(none.provider).toBeUndefined();
    expect(none.plan.providers).toEqual(parent.providers);
  });

  it('an agent with agents: none gets an empty roster', () => {
    const loner = { ...agent, agents: 'none' as const };
    expect(childPlan({ parent, agent: loner }).plan.agents).toBeUndefined();
  });
});

describe('mergeApprovalConfig', () => {
  it('keeps the stricter defaults', () => {
    expect(
      mergeApprovalConfig(
        { default_action: 'deny', approval_default: 'deny', default_rules: true },
        { default_action: 'allow', approval_default: 'allow', default_rules: false },
      ),
    ).toMatchObject({ default_action: 'deny', approval_default: 'deny', default_rules: true, rules: [] });
  });
});

describe('mergeApprovalConfig: an agent file cannot loosen the parent', () => {
  it('keeps every parent key, adds only restrictions', () => {
    const parent = {
      rules: [{ tool: 'bash', action: 'ask' }],
      shell_tools: ['bash', 'sh_tool'],
      path_arguments: ['file_path'],
      tools: { bash: { require_approval: true } },
      audit: true,
      priority: 5,
      policy_driven_only: false,
    };
    const agent = {
      rules: [
        { tool: '*', action: 'allow' },
        { tool: 'web_fetch', action: 'deny' },
      ],
      default_action: 'allow',
      approval_default: 'allow',
      default_rules: false,
      shell_tools: [],
      path_arguments: [],
      tools: { bash: { require_approval: false }, write_file: { require_approval: true } },
      audit: false,
      priority: 1000,
      policy_driven_only: true,
    };
    const merged = mergeApprovalConfig(parent, agent);
    expect(merged.rules).toEqual([
      { tool: 'bash', action: 'ask' },
      { tool: 'web_fetch', action: 'deny' },
    ]);
    expect(merged.default_action).toBe('ask');
    expect(merged.approval_default).toBe('deny');
    expect(merged.default_rules).toBe(true);
    expect(merged.shell_tools).toEqual(['bash', 'sh_tool']);
    expect(merged.path_arguments).toEqual(['file_path']);
    expect(merged.tools).toEqual({
      bash: { require_approval: true },
      write_file: { require_approval: true },
    });
    expect(merged.audit).toBe(true);
    expect(merged.priority).toBe(5);
    expect(merged.policy_driven_only).toBe(false);
  });

  it('a parent without the key keeps the module default (a narrower agent list is not taken)', () => {
    const merged = mergeApprovalConfig({}, { shell_tools: ['only_this'], audit: { enabled: true } });
    expect(merged.shell_tools).toBeUndefined();
    expect(merged.audit).toEqual({ enabled: true });
    expect(mergeApprovalConfig(undefined, { approval_default: 'allow' }).approval_default).toBe('deny');
  });
});

describe('globMatch', () => {
  it('matches the patterns agent files use', () => {
    expect(globMatch('claude-haiku-*', 'claude-haiku-4-5')).toBe(true);
    expect(globMatch('gpt-5.[0-9]', 'gpt-5.1')).toBe(true);
    expect(globMatch('gpt-5.[0-9]', 'gpt-5x1')).toBe(false);
    expect(globMatch('gemini-*-pro', 'gemini-2.5-pro')).toBe(true);
  });
});
