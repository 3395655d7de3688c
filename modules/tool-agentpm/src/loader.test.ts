/**
 * Config, the tool environment, finding tool folders (paths and packages),
 * and loading: a tool that fails is reported and the others still mount.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Logger, silentLogger } from '@amplifier/core';
import { createTestCoordinator, MockTool } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manifest, NODE_TOOL, PYTHON_TOOL, SCRIPTS, tempDir, writeTool } from './__fixtures__/tools.js';
import { DEFAULTS, parseConfig, toolEnvironment } from './config.js';
import {
  type AgentPmTool,
  type LoadProblem,
  type MountedToolInfo,
  mount,
  PROBLEMS_CAPABILITY,
  TOOLS_CAPABILITY,
} from './index.js';
import { findExecutable, locateToolFolder, prepareTools } from './loader.js';
import type { AgentManifest } from './manifest.js';

let root: string;
let remove: () => void;
beforeEach(() => {
  ({ dir: root, remove } = tempDir('tool-agentpm-loader-'));
});
afterEach(() => remove());

function recordingLogger(): Logger & { warnings: string[]; infos: string[] } {
  const warnings: string[] = [];
  const infos: string[] = [];
  return {
    ...silentLogger,
    warn: (m: string) => warnings.push(m),
    info: (m: string) => infos.push(m),
    warnings,
    infos,
  };
}

describe('config', () => {
  it('fills in the defaults', () => {
    expect(parseConfig({})).toEqual({
      tools: [],
      env: {},
      timeout_ms: 120_000,
      max_output_bytes: 1_048_576,
      kill_grace_ms: 1000,
      sandbox: {
        mode: 'auto',
        writable: [],
        network: false,
        hidden: [],
        max_processes: 512,
        tmp_size_mb: 512,
      },
      pass_env: ['PATH', 'HOME', 'LANG', 'TMPDIR'],
      working_dir: null,
    });
    expect(parseConfig(undefined)).toEqual(DEFAULTS);
  });

  it('bad config fails mount with every problem and what to change; unknown keys are warned about', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    await expect(
      mount(coordinator, {
        tools: 'text-stats',
        timeout_ms: -1,
        env: { TOKEN: 42 },
        pass_env: ['NOT-A-NAME'],
      }),
    ).rejects.toThrow(
      [
        'tool-agentpm: invalid config:',
        '  - tools must be array',
        '  - env.TOKEN must be string',
        '  - timeout_ms must be >= 1',
        '  - pass_env[0] must match pattern "^[A-Za-z_][A-Za-z0-9_]*$"',
        "Fix these keys in the module's config.",
      ].join('\n'),
    );
    const logger = recordingLogger();
    parseConfig({ tool: [] }, logger);
    expect(logger.warnings).toEqual(["tool-agentpm: unknown config key 'tool' is ignored"]);
  });

  it('durations are seconds (timeout, kill_grace), with the *_ms keys as aliases', () => {
    expect(parseConfig({ timeout: 2.5, kill_grace: 0.2 })).toMatchObject({
      timeout_ms: 2500,
      kill_grace_ms: 200,
    });
    expect(parseConfig({ timeout_ms: 900, kill_grace_ms: 50 })).toMatchObject({
      timeout_ms: 900,
      kill_grace_ms: 50,
    });
    expect(parseConfig({ timeout: 1, timeout_ms: 1000 })).toMatchObject({ timeout_ms: 1000 });
    expect(() => parseConfig({ timeout: 1, timeout_ms: 30 })).toThrow(
      'tool-agentpm: config.timeout (1 s) and config.timeout_ms (30 ms) disagree; give one (timeout, in seconds)',
    );
    expect(() => parseConfig({ timeout: 0 })).toThrow('timeout must be > 0');
    expect(() => parseConfig({ kill_grace: 61 })).toThrow('kill_grace must be <= 60');
  });
});

describe('the tool environment (only what is declared)', () => {
  const data = manifest('env', {
    entrypoint: { command: 'node', args: ['main.mjs'], env: { FIXED: 'from-manifest', MODE: 'overridden' } },
    environment: {
      vars: {
        TOKEN: { required: true, description: 'API token' },
        MODE: { default: 'fast' },
        REGION: { required: false },
        COLOR: { required: true, default: 'blue' },
      },
    },
  }) as unknown as AgentManifest;
  const host = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    OPENAI_API_KEY: 'sk-secret',
    TOKEN: 'host-token',
    SHELL: '/bin/sh',
  };

  it('passes PATH and pass_env names, the fixed env, then each declared variable: config, else host, else default', () => {
    const { env } = toolEnvironment(
      data,
      { env: { MODE: 'slow', UNDECLARED: 'x' }, pass_env: ['HOME', 'LANG', 'TOKEN'] },
      host,
    );
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      FIXED: 'from-manifest',
      TOKEN: 'host-token',
      MODE: 'slow',
      COLOR: 'blue',
    });
    expect(toolEnvironment(data, { env: { TOKEN: 't' }, pass_env: [] }, host).env).toMatchObject({
      MODE: 'fast',
      PATH: '/usr/bin',
      TOKEN: 't',
    });
  });

  it('a required variable without default and without a value is missing, by name', () => {
    expect(toolEnvironment(data, { env: {}, pass_env: [] }, { PATH: '/bin' })).toEqual({
      env: undefined,
      missing: ['TOKEN'],
      withheld: [],
      unset: [],
    });
  });

  describe("a declared secret-named variable needs the user's opt-in to come from the host (issue 16, point 3)", () => {
    const secretive = manifest('secretive', {
      environment: {
        vars: {
          OPENAI_API_KEY: { required: false },
          AWS_SECRET_ACCESS_KEY: { default: 'none' },
          GITHUB_TOKEN: { required: true },
          REGION: { required: false },
        },
      },
    }) as unknown as AgentManifest;
    const hostWithSecrets = {
      PATH: '/usr/bin',
      OPENAI_API_KEY: 'sk-host',
      AWS_SECRET_ACCESS_KEY: 'aws-host',
      GITHUB_TOKEN: 'ghp-host',
      REGION: 'eu',
    };

    it('without pass_env: not taken from the host (a required one is missing, a default is used instead)', () => {
      const result = toolEnvironment(secretive, { env: {}, pass_env: [] }, hostWithSecrets);
      expect(result).toEqual({
        env: undefined,
        missing: ['GITHUB_TOKEN'],
        withheld: ['AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'OPENAI_API_KEY'],
        unset: [],
      });
      const optional = toolEnvironment(
        secretive,
        { env: { GITHUB_TOKEN: 'cfg' }, pass_env: [] },
        hostWithSecrets,
      );
      expect(optional.env).toEqual({
        PATH: '/usr/bin',
        AWS_SECRET_ACCESS_KEY: 'none',
        GITHUB_TOKEN: 'cfg',
        REGION: 'eu',
      });
      expect(optional.withheld).toEqual(['AWS_SECRET_ACCESS_KEY', 'OPENAI_API_KEY']);
    });

    it('pass_env names are the opt-in; config env values are given by the user and always used', () => {
      const result = toolEnvironment(
        secretive,
        { env: { GITHUB_TOKEN: 'cfg' }, pass_env: ['OPENAI_API_KEY', 'AWS_SECRET_ACCESS_KEY'] },
        hostWithSecrets,
      );
      expect(result).toEqual({
        env: {
          PATH: '/usr/bin',
          OPENAI_API_KEY: 'sk-host',
          AWS_SECRET_ACCESS_KEY: 'aws-host',
          GITHUB_TOKEN: 'cfg',
          REGION: 'eu',
        },
        missing: [],
        withheld: [],
        unset: [],
      });
    });

    it('the load report says how to opt in: an error for a required one, a warning for the others', async () => {
      const folder = writeTool(
        root,
        'secretive',
        SCRIPTS.envDump,
        secretive as unknown as Record<string, unknown>,
      );
      const { tools, problems } = prepareTools(parseConfig({ tools: [folder] }), {
        baseDir: root,
        hostEnv: { ...hostWithSecrets, PATH: process.env.PATH },
      });
      expect(tools).toEqual([]);
      expect(problems.map((p) => [p.severity, p.path, p.message])).toEqual([
        [
          'error',
          'environment.vars.GITHUB_TOKEN',
          "required variable GITHUB_TOKEN is secret-named, so the host's value is passed only when you opt in: add it to the module's config pass_env (pass_env: [GITHUB_TOKEN]) or set it in the config env (env: { GITHUB_TOKEN: ... })",
        ],
      ]);
      const loaded = prepareTools(parseConfig({ tools: [folder], env: { GITHUB_TOKEN: 'cfg' } }), {
        baseDir: root,
        hostEnv: { ...hostWithSecrets, PATH: process.env.PATH },
      });
      expect(loaded.tools).toHaveLength(1);
      expect(loaded.problems.map((p) => [p.severity, p.path])).toEqual([
        ['warning', 'environment.vars.AWS_SECRET_ACCESS_KEY'],
        ['warning', 'environment.vars.OPENAI_API_KEY'],
      ]);
      expect(loaded.problems[1]!.message).toBe(
        "the host's OPENAI_API_KEY is not passed to the tool (secret-named); add it to the module's config pass_env to pass it",
      );
    });
  });
});

describe('config is read through own properties only (issue 16, point 1)', () => {
  const LOOSENING = { pass_env: ['OPENAI_API_KEY', 'PATH'], max_output_bytes: 1e12, timeout_ms: 2 ** 31 - 1 };

  it('an own __proto__ key (JSON.parse) is an unknown key: warned, ignored, not carried into the config', () => {
    const raw = JSON.parse(`{"__proto__": ${JSON.stringify(LOOSENING)}, "kill_grace_ms": 5}`) as Record<
      string,
      unknown
    >;
    const logger = recordingLogger();
    const config = parseConfig(raw, logger);
    expect(config).toEqual({ ...DEFAULTS, kill_grace_ms: 5 });
    expect(Object.hasOwn(config, '__proto__')).toBe(false);
    expect(logger.warnings).toEqual(["tool-agentpm: unknown config key '__proto__' is ignored"]);
  });

  it('inherited keys (Object.create) are not read, at the top or inside env', () => {
    expect(parseConfig(Object.create(LOOSENING) as Record<string, unknown>)).toEqual(DEFAULTS);
    const env = Object.create({ INHERITED: 'x' }) as Record<string, string>;
    env.OWN = 'y';
    expect(parseConfig({ env }).env).toEqual({ OWN: 'y' });
  });

  it('an own __proto__ name inside env stays a plain key and never becomes the prototype', () => {
    const config = parseConfig(
      JSON.parse('{"env": {"__proto__": "x", "A": "1"}}') as Record<string, unknown>,
    );
    expect(Object.getPrototypeOf(config.env)).toBe(Object.prototype);
    expect(Object.keys(config.env)).toEqual(['__proto__', 'A']);
  });

  it.each([
    ['JSON.parse with an own __proto__', () => JSON.parse(`{"__proto__": ${JSON.stringify(LOOSENING)}}`)],
    ['Object.create', () => Object.create(LOOSENING)],
  ])('%s: a mounted tool still does not get OPENAI_API_KEY', async (_name, make) => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-LEAK-proto';
    try {
      const folder = writeTool(root, 'env-dump', SCRIPTS.envDump, manifest('env-dump'));
      const raw = make() as Record<string, unknown>;
      Object.defineProperty(raw, 'tools', { value: [folder], enumerable: true });
      const coordinator = createTestCoordinator({ bare: true });
      const cleanup = await mount(coordinator, raw);
      try {
        const result = await coordinator.get('tools', 'env_dump')!.execute({});
        expect(result.success).toBe(true);
        expect(JSON.stringify(result.output)).not.toContain('LEAK');
      } finally {
        await cleanup();
      }
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });
});

describe('finding tool folders', () => {
  it('paths are relative to the base dir; other names are packages in node_modules, then folders', () => {
    expect(locateToolFolder('./tools/a', root)).toBe(path.join(root, 'tools/a'));
    expect(locateToolFolder('/abs/a', root)).toBe('/abs/a');

    const pkg = path.join(root, 'node_modules', '@acme', 'wc-tool');
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, 'package.json'), '{"name":"@acme/wc-tool","version":"1.0.0"}');
    fs.writeFileSync(path.join(pkg, 'agent.json'), '{}');
    const project = path.join(root, 'project', 'sub');
    fs.mkdirSync(project, { recursive: true });
    expect(locateToolFolder('@acme/wc-tool', project)).toBe(pkg);

    const plain = path.join(root, 'node_modules', 'no-manifest');
    fs.mkdirSync(plain, { recursive: true });
    fs.writeFileSync(path.join(plain, 'package.json'), '{"name":"no-manifest"}');
    expect(locateToolFolder('no-manifest', root)).toEqual({
      error: `package no-manifest (${plain}) ships no agent.json`,
    });

    writeTool(root, 'local-tool', SCRIPTS.echo);
    expect(locateToolFolder('local-tool', root)).toBe(path.join(root, 'local-tool'));
    expect(locateToolFolder('missing-tool', root)).toEqual({
      error: `tool 'missing-tool' not found: no package missing-tool in node_modules from ${root} and no agent.json in ${path.join(root, 'missing-tool')}`,
    });
  });

  it('interpreters resolve on the tool PATH (absolute entries only) or as absolute executables', () => {
    expect(findExecutable('node', path.dirname(process.execPath))).toBe(
      path.join(path.dirname(process.execPath), 'node'),
    );
    expect(findExecutable(process.execPath, '')).toBe(process.execPath);
    expect(findExecutable('node', `.${path.delimiter}relative/bin`)).toBeUndefined();
    expect(findExecutable('/no/such/python3', '/usr/bin')).toBeUndefined();
  });
});

describe('loading', () => {
  it('manifest timeout_ms wins over the config default; execution.serial is read', () => {
    const serial = writeTool(
      root,
      'serial',
      SCRIPTS.echo,
      manifest('serial', { execution: { serial: true } }),
    );
    const { tools, problems } = prepareTools(parseConfig({ tools: [NODE_TOOL, serial], timeout_ms: 5000 }), {
      baseDir: root,
      hostEnv: process.env,
    });
    expect(problems).toEqual([]);
    expect(tools.map((t) => [t.name, t.timeoutMs, t.serial])).toEqual([
      ['text_stats', 30_000, false],
      ['serial', 5000, true],
    ]);
    expect(tools[0]!.command).toBe(findExecutable('node', process.env.PATH ?? ''));
  });

  it('a tool that fails to load is reported (warning + capability) and the others still mount', async () => {
    const broken = writeTool(root, 'broken', SCRIPTS.echo, manifest('broken', { version: 'one' }));
    const needsKey = writeTool(
      root,
      'needs-key',
      SCRIPTS.echo,
      manifest('needs-key', { environment: { vars: { AGENTPM_TEST_UNSET_KEY: { required: true } } } }),
    );
    const logger = recordingLogger();
    const coordinator = createTestCoordinator({ bare: true, logger });
    const cleanup = await mount(coordinator, {
      tools: [broken, NODE_TOOL, needsKey, './nowhere', PYTHON_TOOL],
    });
    expect([...coordinator.get('tools').keys()]).toEqual(['text_stats', 'word_freq']);
    const problems = coordinator.getCapability<LoadProblem[]>(PROBLEMS_CAPABILITY)!;
    expect(problems).toEqual([
      {
        source: broken,
        folder: broken,
        path: 'version',
        message: '"one" is not a semantic version (like 1.2.3)',
        severity: 'error',
      },
      {
        source: needsKey,
        folder: needsKey,
        path: 'environment.vars.AGENTPM_TEST_UNSET_KEY',
        message:
          "required variable AGENTPM_TEST_UNSET_KEY has no value: set it in the module's config env (env: { AGENTPM_TEST_UNSET_KEY: ... }) or in the host environment",
        severity: 'error',
      },
      {
        source: './nowhere',
        path: '',
        message: `tool folder ${path.join(process.cwd(), 'nowhere')} does not exist`,
        severity: 'error',
        folder: path.join(process.cwd(), 'nowhere'),
      },
    ]);
    expect(logger.warnings).toContain(
      `tool-agentpm: ${broken} (${broken}): version: "one" is not a semantic version (like 1.2.3)`,
    );
    expect(logger.warnings).toContain(`tool-agentpm: tool '${needsKey}' was not loaded`);
    const info = coordinator.getCapability<MountedToolInfo[]>(TOOLS_CAPABILITY)!;
    expect(info.map((i) => [i.name, i.manifest_name, i.version])).toEqual([
      ['text_stats', 'text-stats', '1.0.0'],
      ['word_freq', 'word-freq', '0.2.1'],
    ]);
    await cleanup();
    expect(coordinator.get('tools').size).toBe(0);
  });

  it('the required variable can come from the config env', async () => {
    const needsKey = writeTool(
      root,
      'needs-key',
      SCRIPTS.envDump,
      manifest('needs-key', { environment: { vars: { AGENTPM_TEST_UNSET_KEY: { required: true } } } }),
    );
    const coordinator = createTestCoordinator({ bare: true });
    const cleanup = await mount(coordinator, { tools: [needsKey], env: { AGENTPM_TEST_UNSET_KEY: 'k-123' } });
    const result = await coordinator.get('tools', 'needs_key')!.execute({});
    expect(result.output).toMatchObject({ env: { AGENTPM_TEST_UNSET_KEY: 'k-123' } });
    await cleanup();
  });

  it('relative paths resolve from the session.working_dir capability; working_dir config wins', async () => {
    writeTool(root, 'here', SCRIPTS.echo);
    const coordinator = createTestCoordinator({ bare: true });
    coordinator.registerCapability('session.working_dir', root);
    const cleanup = await mount(coordinator, { tools: ['./here'] });
    expect((coordinator.get('tools', 'here') as AgentPmTool).folder).toBe(path.join(root, 'here'));
    await cleanup();

    const other = createTestCoordinator({ bare: true });
    other.registerCapability('session.working_dir', '/');
    const cleanup2 = await mount(other, { tools: ['./here'], working_dir: root });
    expect(other.get('tools').has('here')).toBe(true);
    await cleanup2();
  });

  it('duplicate folders, duplicate names and names taken by other modules are reported, not replaced', async () => {
    const copy = path.join(root, 'copy');
    fs.cpSync(NODE_TOOL, copy, { recursive: true });
    const coordinator = createTestCoordinator({ bare: true });
    const bash = new MockTool({ name: 'word_freq' });
    coordinator.mount('tools', bash);
    const cleanup = await mount(coordinator, { tools: [NODE_TOOL, NODE_TOOL, copy, PYTHON_TOOL] });
    const problems = coordinator.getCapability<LoadProblem[]>(PROBLEMS_CAPABILITY)!;
    expect(problems.map((p) => [p.source, p.path, p.message])).toEqual([
      [NODE_TOOL, '', `the tool folder is already loaded (as '${NODE_TOOL}'); listed twice in tools`],
      [
        copy,
        'name',
        `another tool is already named 'text_stats' (from ${fs.realpathSync(NODE_TOOL)}); names must be unique`,
      ],
      [PYTHON_TOOL, 'name', "a tool named 'word_freq' is already mounted by another module"],
    ]);
    expect(coordinator.get('tools', 'word_freq')).toBe(bash);
    await cleanup();
    expect(coordinator.get('tools', 'word_freq')).toBe(bash);
  });

  it('an interpreter that is not on the tool PATH fails that tool with a clear message', async () => {
    const noPython = writeTool(
      root,
      'no-python',
      SCRIPTS.echo,
      manifest('no-python', { entrypoint: { command: '/nonexistent/bin/python3', args: ['main.mjs'] } }),
    );
    const { tools, problems } = prepareTools(parseConfig({ tools: [noPython] }), {
      baseDir: root,
      hostEnv: process.env,
    });
    expect(tools).toEqual([]);
    expect(problems).toEqual([
      {
        source: noPython,
        folder: noPython,
        path: 'entrypoint.command',
        message: '/nonexistent/bin/python3 is not an executable file on this host',
        severity: 'error',
      },
    ]);
  });
});
