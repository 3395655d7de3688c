/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: plan files use ${VAR} placeholders */
import fs from 'node:fs';
import path from 'node:path';
import { AmplifierSession, type ModuleLoaderLike, type MountPlan, parseMountPlan } from '@amplifier/core';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, jsonLines, removeTempDirs, runCli, tempDir, writeFile } from './__fixtures__/cli.js';
import { CliError } from './errors.js';
import {
  checkPlan,
  chooseProvider,
  defaultPlan,
  expandEnv,
  parsePlan,
  providerEntry,
  readPlanFile,
  resolvePlan,
} from './plan.js';

afterEach(removeTempDirs);

describe('default plan', () => {
  it('app-cli 1: has orchestrator and context, a provider, and tool-filesystem allowed_write_paths containing "."', () => {
    const cwd = tempDir();
    const { plan } = resolvePlan({ cwd, env: {} });
    expect(plan.session.orchestrator).toBe('loop-basic');
    expect(plan.session.context).toBe('context-simple');
    expect(plan.providers?.length).toBeGreaterThanOrEqual(1);
    const fs = plan.tools?.find((t) => t.module === 'tool-filesystem');
    expect(fs?.config?.allowed_write_paths).toContain('.');
    expect(plan.tools?.map((t) => t.module)).toEqual(['tool-filesystem', 'tool-bash', 'tool-web']);
    expect(plan.hooks?.map((h) => h.module)).toEqual(['hooks-logging']);
  });

  it('chooses anthropic, then openai (key or base URL), else the offline demo', () => {
    expect(chooseProvider({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' }).name).toBe('anthropic');
    expect(chooseProvider({ OPENAI_API_KEY: 'o' }).name).toBe('openai');
    expect(chooseProvider({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }).name).toBe('openai');
    expect(chooseProvider({ GEMINI_API_KEY: 'g' })).toMatchObject({
      name: 'gemini',
      reason: 'GEMINI_API_KEY is set',
    });
    expect(chooseProvider({ GOOGLE_API_KEY: 'g' })).toMatchObject({
      name: 'gemini',
      reason: 'GOOGLE_API_KEY is set',
    });
    expect(chooseProvider({ GEMINI_API_KEY: 'g', OPENAI_API_KEY: 'o' }).name).toBe('openai');
    expect(chooseProvider({ AWS_BEARER_TOKEN_BEDROCK: 'b' })).toMatchObject({
      name: 'bedrock',
      reason: 'AWS_BEARER_TOKEN_BEDROCK is set',
    });
    expect(chooseProvider({ AWS_ENDPOINT_URL_BEDROCK_RUNTIME: 'http://127.0.0.1:9' }).name).toBe('bedrock');
    expect(chooseProvider({ AWS_BEARER_TOKEN_BEDROCK: 'b', GEMINI_API_KEY: 'g' }).name).toBe('gemini');
    // AWS credentials serve every AWS service: alone they do not pick Bedrock.
    expect(
      chooseProvider({
        AWS_ACCESS_KEY_ID: 'a',
        AWS_SECRET_ACCESS_KEY: 's',
        AWS_REGION: 'us-east-1',
        AWS_PROFILE: 'p',
      }),
    ).toMatchObject({ name: 'mock', demo: true });
    expect(chooseProvider({ AZURE_OPENAI_ENDPOINT: 'https://r.openai.azure.com' })).toMatchObject({
      name: 'azure',
      reason: 'AZURE_OPENAI_ENDPOINT is set',
    });
    expect(chooseProvider({ AZURE_OPENAI_API_KEY: 'k' })).toMatchObject({
      name: 'azure',
      reason: 'AZURE_OPENAI_API_KEY is set',
    });
    // Azure comes after every other vendor's variables.
    expect(chooseProvider({ AZURE_OPENAI_API_KEY: 'k', GEMINI_API_KEY: 'g' }).name).toBe('gemini');
    expect(chooseProvider({ AZURE_OPENAI_ENDPOINT: 'https://r', OPENAI_API_KEY: 'o' }).name).toBe('openai');
    expect(chooseProvider({})).toMatchObject({ name: 'mock', demo: true });
  });

  it('the demo provider entry carries a respond function; --model sets the right key per provider', () => {
    const cwd = tempDir();
    expect(typeof providerEntry('mock', cwd, true).config?.respond).toBe('function');
    expect(
      resolvePlan({ cwd, provider: 'mock', model: 'm1', env: {} }).plan.providers?.[0]?.config?.model,
    ).toBe('m1');
    expect(resolvePlan({ cwd, provider: 'openai', model: 'gpt-x', env: {} }).plan.providers?.[0]).toEqual({
      module: 'provider-openai',
      config: { default_model: 'gpt-x' },
    });
    const withMax = resolvePlan({ cwd, maxIterations: 3, env: {} }).plan;
    expect(withMax.orchestrator?.config?.max_iterations).toBe(3);
  });

  it('configures web_search from BRAVE_API_KEY / TAVILY_API_KEY / SEARXNG_URL, and leaves it unconfigured otherwise', () => {
    const web = (env: NodeJS.ProcessEnv) => defaultPlan({ module: 'provider-mock' }, env).tools?.[2]?.config;
    expect(web({})).toEqual({});
    expect(web({ BRAVE_API_KEY: 'k' })).toEqual({ search_engine: 'brave' });
    expect(web({ SEARXNG_URL: 'http://127.0.0.1:8888' })).toEqual({
      search_engine: 'searxng',
      search_url: 'http://127.0.0.1:8888',
    });
  });
});

describe('plan files', () => {
  it('app-cli 2: ${VAR} resolves from the environment, ${VAR:def} falls back to "def", a missing var becomes ""', () => {
    const env = { GREETING: 'hello', EMPTY: '' };
    expect(
      expandEnv({ a: '${GREETING} world', b: ['${MISSING:def}', 5], c: '${MISSING}!', d: '${EMPTY:x}' }, env),
    ).toEqual({ a: 'hello world', b: ['def', 5], c: '!', d: '' });
  });

  it('an unset ${VAR} without a default is reported with where it stands; set ones and defaults are not', () => {
    const unset: { name: string; at: string }[] = [];
    const out = expandEnv(
      {
        providers: [{ config: { model: '${MY_MODEL}', key: '${SET}', other: '${GONE:x}' } }],
        note: 'a ${MY_MODEL} b',
      },
      { SET: 'yes' },
      (variable) => unset.push(variable),
    );
    expect(out).toEqual({ providers: [{ config: { model: '', key: 'yes', other: 'x' } }], note: 'a  b' });
    expect(unset).toEqual([
      { name: 'MY_MODEL', at: 'providers[0].config.model' },
      { name: 'MY_MODEL', at: 'note' },
    ]);
  });

  it('a plan whose module fails because of an unset ${VAR} names the variable, what it emptied and the fix', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeFile(
      path.join(cwd, 'plan.yaml'),
      'session:\n  orchestrator: loop-basic\n  context: context-simple\nproviders:\n  - module: provider-mock\n    config:\n      model: ${MY_MODEL}\n',
    );
    const result = await runCli(['run', '--plan', plan, 'hi'], {
      cwd,
      env: cliEnv(home, { MY_MODEL: undefined }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `\${MY_MODEL} is not set, so providers[0].config.model is empty (${plan}): set MY_MODEL, or write \${MY_MODEL:default}`,
    );
    expect(result.stderr).toContain('model must not be empty');
    expect(result.stderr.indexOf('MY_MODEL is not set')).toBeLessThan(
      result.stderr.indexOf('model must not be empty'),
    );
  });

  it('a mistyped module id in a plan gets "Did you mean" with the id of a module this run could load', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeFile(
      path.join(cwd, 'plan.yaml'),
      'session:\n  orchestrator: loop-basic\n  context: context-simple\nproviders:\n  - module: provider-mock\ntools:\n  - module: tool-filesytem\n',
    );
    const result = await runCli(['run', '--plan', plan, 'hi'], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "Could not load tool 'tool-filesytem': Did you mean 'tool-filesystem'? Module 'tool-filesytem' not found.",
    );
  });

  it('reads YAML and JSON; relative sources are resolved against the plan file folder', () => {
    const dir = tempDir();
    const file = writeFile(
      path.join(dir, 'plans', 'p.yaml'),
      'session:\n  orchestrator: loop-basic\n  context: context-simple\nhooks:\n  - module: mine\n    source: ./hooks/mine\n  - module: other\n    source: some-package\n',
    );
    const plan = readPlanFile(file, {}) as { hooks: Array<{ source: string }> };
    expect(plan.hooks[0]?.source).toBe(path.join(dir, 'plans', 'hooks', 'mine'));
    expect(plan.hooks[1]?.source).toBe('some-package');
  });

  it('a YAML syntax error names the file', () => {
    const dir = tempDir();
    const file = writeFile(path.join(dir, 'bad.yaml'), 'session: [\n');
    expect(() => readPlanFile(file, {})).toThrow(/Cannot parse the plan file .*bad\.yaml/);
    const broken = writeFile(
      path.join(dir, 'broken.yaml'),
      'session:\n  orchestrator: [loop-basic\nproviders: x\n',
    );
    expect(() => readPlanFile(broken, {})).toThrow(/at line \d+, column \d+$/);
  });

  it('--plan with ${VAR} and ${VAR:default} reaches the modules (CLI)', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeFile(
      path.join(cwd, 'plan.yaml'),
      [
        'session: { orchestrator: loop-basic, context: context-simple }',
        'providers:',
        '  - module: provider-mock',
        '    config:',
        '      default_text: "${GREETING} from ${PLACE:the default}${UNSET_VAR}!"',
        '      model: "${MODEL_NAME:fallback-model}"',
      ].join('\n'),
    );
    const result = await runCli(['run', '--plan', plan, '--json', 'hi'], {
      cwd,
      env: cliEnv(home, { GREETING: 'Hello', PLACE: undefined, MODEL_NAME: undefined, UNSET_VAR: undefined }),
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = jsonLines(result.stdout);
    expect(lines.find((l) => l.type === 'result')?.response).toBe('Hello from the default!');
    expect(lines.find((l) => l.type === 'session')?.model).toBe('fallback-model');
  });

  it('an invalid plan lists every error with its path (CLI, exit 1)', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeFile(
      path.join(cwd, 'plan.json'),
      JSON.stringify({
        session: { orchestrator: 'loop-basic' },
        tools: [{ module: 'tool-bash', config: 5 }],
      }),
    );
    const result = await runCli(['run', '--plan', plan, 'hi'], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Invalid mount plan');
    expect(result.stderr).toContain('(2 errors)');
    expect(result.stderr).toMatch(/session\.context .*required|session .*context/);
    expect(result.stderr).toContain('tools[0].config must be object');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('a missing module names the npm install command, without a stack trace (CLI, exit 1)', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeFile(
      path.join(cwd, 'plan.json'),
      JSON.stringify({
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [{ module: 'provider-mock' }],
        tools: [{ module: 'tool-nowhere' }],
      }),
    );
    const result = await runCli(['run', '--plan', plan, 'hi'], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Could not load tool 'tool-nowhere'");
    expect(result.stderr).toContain('npm install @amplifier/tool-nowhere');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('a missing orchestrator is fatal with the same advice', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeFile(
      path.join(cwd, 'plan.json'),
      JSON.stringify({ session: { orchestrator: 'loop-nowhere', context: 'context-simple' } }),
    );
    const result = await runCli(['run', '--plan', plan, 'hi'], { cwd, env: cliEnv(home) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Cannot initialize without orchestrator');
    expect(result.stderr).toContain('npm install @amplifier/loop-nowhere');
  });
});

describe('plan files are data: prototype keys and deep nesting', () => {
  const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

  it('${VAR} expansion keeps __proto__ / constructor / prototype as keys; nothing becomes inherited', () => {
    for (const key of PROTO_KEYS) {
      const parsed = JSON.parse(`{"config": {"${key}": {"safety_profile": "\${PROFILE:unrestricted}"}}}`);
      const out = expandEnv(parsed, {}) as { config: Record<string, unknown> };
      expect(Object.getPrototypeOf(out.config)).toBe(Object.prototype);
      expect(out.config.safety_profile).toBeUndefined();
      expect(Object.getOwnPropertyDescriptor(out.config, key)?.value).toEqual({
        safety_profile: 'unrestricted',
      });
    }
  });

  it('YAML and JSON plan files with such keys: the module config has them as own keys only', () => {
    const dir = tempDir();
    for (const key of PROTO_KEYS) {
      const yaml = writeFile(
        path.join(dir, `${key}.yaml`),
        `session: { orchestrator: loop-basic, context: context-simple }\ntools:\n  - module: tool-bash\n    config:\n      ${key}:\n        safety_profile: unrestricted\n`,
      );
      const json = writeFile(
        path.join(dir, `${key}.json`),
        `{"session": {"orchestrator": "loop-basic", "context": "context-simple"}, "tools": [{"module": "tool-bash", "config": {"${key}": {"safety_profile": "unrestricted"}}}]}`,
      );
      for (const file of [yaml, json]) {
        const plan = readPlanFile(file, {}) as { tools: { config: Record<string, unknown> }[] };
        const config = plan.tools[0]!.config;
        expect(config.safety_profile, file).toBeUndefined();
        expect(Object.keys(config), file).toEqual([key]);
      }
    }
  });

  it('a plan file nested deeper than 256 levels is refused with a clear error, never a crash (JSON and YAML)', () => {
    const dir = tempDir();
    const cases = {
      'deep.json': `{"session": {"orchestrator": "loop-basic", "context": "context-simple", "metadata": ${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}}`,
      'deep-flow.yaml': `session: { orchestrator: loop-basic, context: context-simple }\nproviders: ${'['.repeat(5_000)}${']'.repeat(5_000)}\n`,
      'deep-block.yaml': `session:\n${Array.from({ length: 3_000 }, (_, i) => `${' '.repeat(i + 1)}a:`).join('\n')} 1\n`,
      'just-over.json': `{"session": ${'{"a":'.repeat(300)}1${'}'.repeat(300)}}`,
    };
    for (const [name, text] of Object.entries(cases)) {
      const file = writeFile(path.join(dir, name), text);
      expect(() => readPlanFile(file, {}), name).toThrow(
        /nested deeper than 256 levels|nested too deeply to read \(plans are at most 256 levels deep\)/,
      );
    }
  });

  it('CLI: {"__proto__": {"allowed_write_paths": ["/"]}} on tool-filesystem never lets write_file out of the workspace', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const outside = tempDir('amp-outside-');
    const target = path.join(outside, 'pwned.txt');
    const script = [
      { tool_calls: [{ id: 'w1', name: 'write_file', arguments: { file_path: target, content: 'x' } }] },
      'done',
    ];
    for (const format of ['json', 'yaml'] as const) {
      const plan =
        format === 'json'
          ? writeFile(
              path.join(cwd, 'plan.json'),
              `{"session": {"orchestrator": "loop-basic", "context": "context-simple"},
                "providers": [{"module": "provider-mock", "config": {"script": ${JSON.stringify(script)}}}],
                "tools": [{"module": "tool-filesystem", "config": {"__proto__": {"allowed_write_paths": ["/"]}}}]}`,
            )
          : writeFile(
              path.join(cwd, 'plan.yaml'),
              [
                'session: { orchestrator: loop-basic, context: context-simple }',
                'providers:',
                `  - { module: provider-mock, config: { script: ${JSON.stringify(script)} } }`,
                'tools:',
                '  - module: tool-filesystem',
                '    config:',
                '      __proto__:',
                '        allowed_write_paths: ["/"]',
              ].join('\n'),
            );
      const result = await runCli(['run', '--plan', plan, '--json', 'go'], { cwd, env: cliEnv(home) });
      // Either outcome keeps the module as strict as its defaults: tool-filesystem refuses the
      // unknown key (exit 1, naming it), or a module that ignores it runs with its defaults.
      if (result.code === 1) {
        expect(result.stderr, format).toMatch(
          /tool-filesystem.*\n.*__proto__ is not allowed \(unknown key\)/,
        );
      } else {
        expect(result.code, result.stderr).toBe(0);
        const post = jsonLines(result.stdout).find((l) => l.event === 'tool:post')?.data as {
          result: { success: boolean; error?: { message: string } };
        };
        expect(post.result.success, format).toBe(false);
        expect(post.result.error?.message, format).toMatch(/outside|not allowed|allowed_write_paths/i);
      }
      expect(fs.existsSync(target), format).toBe(false);
    }
  });
});

describe('the plan is validated once, then handed to the session as parsed', () => {
  const loader: ModuleLoaderLike = { load: async (id) => ({ id, type: undefined, mount: async () => {} }) };

  /** The plan is parsed (frozen, marked): the session keeps that very object, validating nothing. */
  function expectParsed(plan: MountPlan): void {
    expect(Object.isFrozen(plan)).toBe(true);
    expect(parseMountPlan(plan)).toBe(plan);
    expect(new AmplifierSession(plan, { loader }).config).toBe(plan);
  }

  it('resolvePlan returns a parsed plan: built in, from a file as written, and from a file with overrides', () => {
    const cwd = tempDir();
    expectParsed(resolvePlan({ cwd, env: {} }).plan);
    const file = writeFile(
      path.join(cwd, 'plan.yaml'),
      [
        'session: { orchestrator: loop-basic, context: context-simple }',
        'providers:',
        '  - module: provider-mock',
        '    config: { default_text: hi }',
        '  - module: provider-openai',
      ].join('\n'),
    );
    const asWritten = resolvePlan({ cwd, planFile: file, env: {} }).plan;
    expectParsed(asWritten);
    expect(asWritten).toEqual(readPlanFile(file, {}));
    const overridden = resolvePlan({
      cwd,
      planFile: file,
      provider: 'mock',
      model: 'm2',
      maxIterations: 4,
      env: {},
    });
    expectParsed(overridden.plan);
    expect(overridden.plan.providers).toEqual([
      { module: 'provider-mock', config: { default_text: 'hi', model: 'm2' } },
    ]);
    expect(overridden.plan.orchestrator).toEqual({ config: { max_iterations: 4 } });
    expect(overridden.model).toBe('m2');
    const toolsOnly = resolvePlan({
      cwd,
      planFile: file,
      emptySections: ['providers', 'hooks'],
      env: {},
    }).plan;
    expectParsed(toolsOnly);
    expect([toolsOnly.providers, toolsOnly.hooks]).toEqual([[], []]);
  });

  it('an override never hides a problem of the plan file; parsePlan reports like checkPlan', () => {
    const cwd = tempDir();
    const file = writeFile(
      path.join(cwd, 'plan.json'),
      JSON.stringify({
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [{ modul: 'provider-openai' }],
      }),
    );
    // --provider would replace the providers section: the file is still refused as written.
    expect(() => resolvePlan({ cwd, planFile: file, provider: 'mock', env: {} })).toThrow(CliError);
    expect(() => resolvePlan({ cwd, planFile: file, provider: 'mock', env: {} })).toThrow(
      `Invalid mount plan ${file} (1 error):\n  - providers[0].module is required`,
    );
    const bad = { session: {}, tools: [{ module: 'tool-bash', config: 5 }] };
    let checked: unknown;
    try {
      checkPlan(bad, 'here');
    } catch (error) {
      checked = error;
    }
    expect(checked).toBeInstanceOf(CliError);
    expect((checked as CliError).message).toMatch(/^Invalid mount plan here \(3 errors\):/);
    expect(() => parsePlan(bad, 'here')).toThrow(new CliError((checked as CliError).message));
  });

  it("CLI: a module-source-resolver mounted by a plan's module serves the later modules (run and tool)", async () => {
    const home = tempDir();
    const cwd = tempDir();
    const far = path.join(cwd, 'far', 'far-tool');
    writeFile(
      path.join(far, 'index.js'),
      `export async function mount(coordinator) {
  coordinator.mount('tools', {
    name: 'far_tool',
    description: 'found through the resolver',
    inputSchema: { type: 'object' },
    async execute() {
      return { success: true, output: 'from far away' };
    },
  });
}
`,
    );
    writeFile(
      path.join(cwd, 'mods', 'resolver', 'index.js'),
      `const where = { 'far-tool': ${JSON.stringify(far)} };
export async function mount(coordinator) {
  coordinator.mount('module-source-resolver', {
    resolve(id) {
      if (where[id] === undefined) {
        throw Object.assign(new Error('resolver: not mine: ' + id), {
          code: 'MODULE_NOT_FOUND',
          [Symbol.for('amplifier.error')]: true,
        });
      }
      return { resolve: () => where[id] };
    },
  });
}
`,
    );
    const plan = writeFile(
      path.join(cwd, 'plan.yaml'),
      [
        'session: { orchestrator: loop-basic, context: context-simple }',
        'providers:',
        '  - module: provider-mock',
        '    config: { default_text: done }',
        'tools:',
        '  - module: resolver',
        '    source: ./mods/resolver',
        '  - module: far-tool',
      ].join('\n'),
    );
    const run = await runCli(['run', '--plan', plan, '--json', 'hi'], { cwd, env: cliEnv(home) });
    expect(run.code, run.stderr).toBe(0);
    expect(jsonLines(run.stdout).find((l) => l.type === 'result')?.response).toBe('done');
    const invoked = await runCli(['tool', 'invoke', 'far_tool', '--plan', plan], { cwd, env: cliEnv(home) });
    expect(invoked.code, invoked.stderr).toBe(0);
    expect(invoked.stdout).toContain('from far away');
  });
});
