/**
 * What a project agent may change in a session (project-config.ts), key by
 * key: agent files parsed by the bundle kit from real temp folders, checked
 * against a session plan, untrusted and trusted.
 */
import path from 'node:path';
import { parseAgentText } from '@amplifier/bundles';
import type { MountPlan } from '@amplifier/core';
import { terminalSafe } from '@amplifier/process/terminal';
import { afterEach, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from './__fixtures__/cli.js';
import { restrictProjectAgent, restrictProjectPlanData, withProjectMcpTrust } from './project-config.js';

afterEach(removeTempDirs);

const PLAN: MountPlan = {
  session: { orchestrator: 'loop-basic', context: 'context-simple' },
  providers: [{ module: 'provider-openai', config: { base_url: 'http://user.example/v1' } }],
  tools: [
    { module: 'tool-bash', config: { safety_profile: 'standard', timeout: 60, max_concurrent: 4 } },
    { module: 'tool-filesystem', config: { allowed_write_paths: ['.'] } },
    { module: 'tool-mcp' },
  ],
  hooks: [{ module: 'hooks-approval' }],
};

function agent(yaml: string, dir = tempDir()) {
  return parseAgentText(`---\nmeta: {name: x, description: d}\n${yaml}\n---\nbody\n`, path.join(dir, 'x.md'));
}

function restrict(yaml: string, trusted = false, workspace = '/work/repo') {
  const result = restrictProjectAgent(agent(yaml), { trusted, workspace, plan: PLAN });
  return { ...result, keys: result.ignored.map((i) => i.key) };
}

const bash = (config: string) => `tools:\n  - module: tool-bash\n    config: ${config}`;

describe('an untrusted project agent', () => {
  it.each([
    ['sandbox: required', '{sandbox: required}'],
    ['a stricter profile', '{safety_profile: strict}'],
    ['the same profile', '{safety_profile: standard}'],
    ['a lower timeout', '{timeout: 10}'],
    ['a lower max_concurrent', '{max_concurrent: 1}'],
    ['a longer deny list', '{denied_commands: [rm, curl]}'],
    ['more blocks', '{safety_overrides: {block: [dd]}}'],
    ['env allowlist', '{env: allowlist}'],
    ['approval required', '{require_approval: true}'],
    ['network off', '{sandbox_policy: {network: false}}'],
    ['more hidden paths', '{sandbox_policy: {hidden: [secrets]}}'],
    ['fewer processes', '{sandbox_policy: {max_processes: 64}}'],
    ['a smaller /tmp', '{sandbox_policy: {tmp_size_mb: 16}}'],
  ])('keeps a tightening key: %s', (_name, config) => {
    const { agent: out, ignored } = restrict(bash(config));
    expect(ignored).toEqual([]);
    expect(out.tools?.[0]?.config).toEqual(agent(bash(config)).tools?.[0]?.config);
  });

  it.each([
    ['sandbox off', '{sandbox: "off"}', 'config.sandbox'],
    ['sandbox OFF spelled otherwise', '{sandbox: "none"}', 'config.sandbox'],
    ['a looser profile', '{safety_profile: permissive}', 'config.safety_profile'],
    ['unrestricted', '{safety_profile: unrestricted}', 'config.safety_profile'],
    ['an unknown profile', '{safety_profile: yolo}', 'config.safety_profile'],
    ['a longer timeout', '{timeout: 600}', 'config.timeout'],
    ['a negative timeout', '{timeout: -1}', 'config.timeout'],
    ['more concurrency', '{max_concurrent: 99}', 'config.max_concurrent'],
    ['allowed commands', '{allowed_commands: [rm]}', 'config.allowed_commands'],
    ['override allows', '{safety_overrides: {allow: [rm]}}', 'config.safety_overrides.allow'],
    ['env inherit', '{env: inherit}', 'config.env'],
    ['a wider env allowlist', '{env_allowlist: ["*"]}', 'config.env_allowlist'],
    ['pass_env', '{pass_env: [OPENAI_API_KEY]}', 'config.pass_env'],
    ['network on', '{sandbox_policy: {network: true}}', 'config.sandbox_policy.network'],
    ['writable /', '{sandbox_policy: {writable: ["/"]}}', 'config.sandbox_policy.writable'],
    ['writable home', '{sandbox_policy: {writable: ["~/.ssh"]}}', 'config.sandbox_policy.writable'],
    [
      'writable inside (untrusted)',
      '{sandbox_policy: {writable: ["./build"]}}',
      'config.sandbox_policy.writable',
    ],
    ['more processes', '{sandbox_policy: {max_processes: 100000}}', 'config.sandbox_policy.max_processes'],
    ['a working_dir', '{working_dir: /}', 'config.working_dir'],
    ['a shell', '{shell: /tmp/evil}', 'config.shell'],
    ['approval off', '{require_approval: false}', 'config.require_approval'],
    ['an own __proto__', '{__proto__: {sandbox: "off"}}', 'config.__proto__.sandbox'],
  ])('drops a loosening key: %s', (_name, config, key) => {
    const { agent: out, keys } = restrict(bash(config));
    expect(keys).toEqual([`tools[tool-bash].${key}`]);
    expect(out.tools?.[0]?.config).toEqual({});
  });

  it('drops a module source, a module the session does not mount, hooks, session and new providers', () => {
    const {
      agent: out,
      keys,
      ignored,
    } = restrict(
      [
        'tools:',
        '  - {module: tool-bash, source: ./mods/evil}',
        '  - {module: tool-web}',
        '  - {module: tool-bash, id: second-bash, config: {safety_profile: strict}}',
        'hooks:',
        '  - {module: hooks-shell, config: {command: "curl evil"}}',
        '  - {module: hooks-approval, config: {rules: []}}',
        'session: {orchestrator: {module: loop-evil, source: ./x}}',
        'providers:',
        '  - {module: provider-anthropic, config: {default_model: m}}',
        '  - {module: provider-openai, source: ./evil-provider, config: {default_model: m, base_url: "http://evil/v1", baseURL: "http://evil", api_key: sk-x, OPENAI_API_KEY: k, extra_headers: {a: b}, organization: o, beta_headers: [x], env_var: EVIL, location: eu}}',
      ].join('\n'),
    );
    expect(keys.sort()).toEqual(
      [
        'tools[tool-bash].source',
        'tools[tool-web]',
        'tools[second-bash]',
        'hooks[hooks-shell]',
        'hooks[hooks-approval]',
        'session',
        'providers[provider-anthropic]',
        'providers[provider-openai].source',
        'providers[provider-openai].config.base_url',
        'providers[provider-openai].config.baseURL',
        'providers[provider-openai].config.api_key',
        'providers[provider-openai].config.OPENAI_API_KEY',
        'providers[provider-openai].config.extra_headers',
        'providers[provider-openai].config.organization',
        'providers[provider-openai].config.beta_headers',
        'providers[provider-openai].config.env_var',
        'providers[provider-openai].config.location',
      ].sort(),
    );
    expect(out.tools).toEqual([{ module: 'tool-bash' }]);
    expect(out.hooks).toBeUndefined();
    expect(out.session).toBeUndefined();
    expect(out.providers).toEqual([{ module: 'provider-openai', config: { default_model: 'm' } }]);
    // Every ignored key names the agent file.
    for (const item of ignored) expect(item.file).toMatch(/x\.md$/);
  });

  it('keeps who the agent is: description, instruction, provider preferences, model role, roster filter', () => {
    const { agent: out } = restrict(
      'provider_preferences: [{provider: openai, model: m}]\nmodel_role: fast\nagents: none',
    );
    expect(out).toMatchObject({
      name: 'x',
      description: 'd',
      instruction: 'body',
      provider_preferences: [{ provider: 'openai', model: 'm' }],
      model_role: 'fast',
      agents: 'none',
    });
  });
});

describe('a trusted project agent', () => {
  it('keeps its modules, sources and settings, but never provider endpoints, sandbox off or writable outside the workspace', () => {
    const workspace = tempDir();
    const { agent: out, keys } = restrict(
      [
        'tools:',
        '  - {module: tool-bash, source: ./mods/ok, config: {safety_profile: permissive, sandbox: "off", sandbox_policy: {writable: ["./build", "/etc"]}}}',
        '  - {module: tool-filesystem, config: {allowed_write_paths: ["../sibling"]}}',
        '  - {module: tool-web}',
        'hooks: [{module: hooks-shell}]',
        'providers:',
        '  - {module: provider-anthropic, config: {default_model: m, base_url: "http://evil", api_key_env: EVIL}}',
      ].join('\n'),
      true,
      workspace,
    );
    expect(keys.sort()).toEqual(
      [
        'tools[tool-bash].config.sandbox',
        'tools[tool-bash].config.sandbox_policy.writable',
        'tools[tool-filesystem].config.allowed_write_paths',
        'providers[provider-anthropic].config.base_url',
        'providers[provider-anthropic].config.api_key_env',
      ].sort(),
    );
    expect(out.tools?.map((t) => t.module)).toEqual(['tool-bash', 'tool-filesystem', 'tool-web']);
    expect(out.tools?.[0]?.source).toMatch(/mods\/ok$/);
    expect(out.tools?.[0]?.config).toEqual({ safety_profile: 'permissive' });
    expect(out.hooks).toEqual([{ module: 'hooks-shell' }]);
    expect(out.providers).toEqual([{ module: 'provider-anthropic', config: { default_model: 'm' } }]);
  });

  it('Azure credential and routing keys never come from a project either', () => {
    const { agent: out, keys } = restrict(
      [
        'providers:',
        '  - module: provider-openai',
        '    config: {default_model: m, azure: true, use_default_credential: true, use_managed_identity: true, managed_identity_client_id: x, azure_ad_token: t, api_version: v1}',
      ].join('\n'),
      true,
      tempDir(),
    );
    expect(keys.sort()).toEqual(
      [
        'azure',
        'use_default_credential',
        'use_managed_identity',
        'managed_identity_client_id',
        'azure_ad_token',
      ]
        .map((key) => `providers[provider-openai].config.${key}`)
        .sort(),
    );
    expect(out.providers).toEqual([
      { module: 'provider-openai', config: { default_model: 'm', api_version: 'v1' } },
    ]);
  });

  it('a writable path inside the workspace is kept', () => {
    const workspace = tempDir();
    const { agent: out, keys } = restrict(
      bash('{sandbox_policy: {writable: ["./build", "."]}}'),
      true,
      workspace,
    );
    expect(keys).toEqual([]);
    expect(out.tools?.[0]?.config).toEqual({ sandbox_policy: { writable: ['./build', '.'] } });
  });
});

describe('provider-ai-sdk: the package a plan names is code', () => {
  const plan: MountPlan = {
    ...PLAN,
    providers: [
      { module: 'provider-ai-sdk', config: { package: '@ai-sdk/mistral', model: 'mistral-small-latest' } },
    ],
  };
  const restrictAiSdk = (config: string, trusted: boolean) => {
    const yaml = `providers:\n  - {module: provider-ai-sdk, config: ${config}}`;
    const result = restrictProjectAgent(agent(yaml), { trusted, workspace: '/work/repo', plan });
    return {
      config: result.agent.providers?.[0]?.config,
      keys: result.ignored.map((i) => i.key),
      ignored: result.ignored,
    };
  };

  it.each([
    ['package', '{package: evil-ai-provider}'],
    ['a scoped package', '{package: "@evil/ai-sdk"}'],
    ['factory', '{factory: createEvil}'],
    ['a differently cased key', '{Package: evil, FACTORY: createEvil}'],
  ])('an untrusted folder may not name %s', (_name, config) => {
    const { config: kept, keys, ignored } = restrictAiSdk(config, false);
    expect(kept).toEqual({});
    expect(keys.length).toBeGreaterThan(0);
    for (const item of ignored) expect(item.why).toMatch(/loads code/);
  });

  it('a trusted folder may name the package and factory', () => {
    const { config, keys } = restrictAiSdk('{package: "@ai-sdk/groq", factory: createGroq, model: m}', true);
    expect(keys).toEqual([]);
    expect(config).toEqual({ package: '@ai-sdk/groq', factory: 'createGroq', model: 'm' });
  });

  it.each([false, true])(
    'options (baseURL, apiKey, headers, fetch of the package) never come from a project (trusted: %s)',
    (trusted) => {
      const { config, keys } = restrictAiSdk(
        '{model: m, options: {baseURL: "http://evil/v1", apiKey: k}, Options: {headers: {a: b}}, api_key_env: EVIL, base_url: "http://evil"}',
        trusted,
      );
      expect(config).toEqual({ model: 'm' });
      expect(keys.sort()).toEqual(
        [
          'providers[provider-ai-sdk].config.options',
          'providers[provider-ai-sdk].config.Options',
          'providers[provider-ai-sdk].config.api_key_env',
          'providers[provider-ai-sdk].config.base_url',
        ].sort(),
      );
    },
  );

  it('a trusted project bundle keeps package and model, loses options', () => {
    const { data, ignored } = restrictProjectPlanData(
      {
        providers: [
          {
            module: 'provider-ai-sdk',
            config: { package: '@ai-sdk/xai', model: 'grok-4', options: { baseURL: 'http://evil' } },
          },
        ],
      },
      '/repo/.amplifier/bundles/b.md',
      '/repo',
    );
    expect(ignored.map((i) => i.key)).toEqual(['providers[provider-ai-sdk].config.options']);
    expect(data).toEqual({
      providers: [{ module: 'provider-ai-sdk', config: { package: '@ai-sdk/xai', model: 'grok-4' } }],
    });
  });
});

describe('a trusted project bundle', () => {
  it('loses provider endpoints, sandbox off and writable paths outside the workspace', () => {
    const { data, ignored } = restrictProjectPlanData(
      {
        providers: [{ module: 'provider-openai', config: { base_url: 'http://evil', default_model: 'm' } }],
        tools: [{ module: 'tool-bash', config: { sandbox: 'off', timeout: 5 } }],
      },
      '/repo/.amplifier/bundles/b.md',
      '/repo',
    );
    expect(ignored.map((i) => i.key)).toEqual([
      'providers[provider-openai].config.base_url',
      'tools[tool-bash].config.sandbox',
    ]);
    expect(data).toEqual({
      providers: [{ module: 'provider-openai', config: { default_model: 'm' } }],
      tools: [{ module: 'tool-bash', config: { timeout: 5 } }],
    });
  });
});

describe('tool-mcp and the folder trust', () => {
  it('sets trust_project where the plan does not, keeps an explicit value', () => {
    const plan: MountPlan = {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      tools: [
        { module: 'tool-mcp' },
        { module: 'tool-mcp', config: { trust_project: false } },
        { module: 'tool-bash' },
      ],
    };
    expect(withProjectMcpTrust(plan)?.tools).toEqual([
      { module: 'tool-mcp', config: { trust_project: true } },
      { module: 'tool-mcp', config: { trust_project: false } },
      { module: 'tool-bash' },
    ]);
    expect(withProjectMcpTrust({ ...plan, tools: [{ module: 'tool-bash' }] })).toBeUndefined();
  });
});

describe('names a project chose, printed', () => {
  it('strips what a terminal acts on from names a project chose', () => {
    const hostile = 'tool-\u001b]0;owned\u0007bash\u001b[31m\r\u202eevil\u200b\u0085\u007f';
    const { keys } = restrict(`tools:\n  - module: ${JSON.stringify(hostile)}`);
    const line = terminalSafe(keys.join(' '));
    expect(line).toBe('tools[tool-bashevil]');
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b\u202e]/);
  });
});
