/**
 * Config, the tool environment, finding tool folders (paths and packages),
 * and loading: a tool that fails is reported and the others still mount.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Logger, silentLogger } from '@amplifier/core';
import { createTestCoordinator, MockTool } from '@amplifier/core/testing';
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
        "Fix the module's config in the mount plan.",
      ].join('\n'),
    );
    const logger = recordingLogger();
    parseConfig({ tool: [] }, logger);
    expect(logger.warnings).toEqual(["tool-agentpm: unknown config key 'tool' ignored"]);
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
      { env: { MODE: 'slow', UNDECLARED: 'x' }, pass_env: ['HOME', 'LANG'] },
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
    expect(toolEnvironment(data, { env: {}, pass_env: [] }, host).env).toMatchObject({
      MODE: 'fast',
      PATH: '/usr/bin',
    });
  });

  it('a required variable without default and without a value is missing, by name', () => {
    expect(toolEnvironment(data, { env: {}, pass_env: [] }, { PATH: '/bin' })).toEqual({
      env: undefined,
      missing: ['TOKEN'],
    });
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
