/**
 * Running manifest tools: both example runtimes, and every way a tool process
 * can go wrong (garbage, exit codes, hangs with children, floods, bad output,
 * leaked environment, cancellation, cleanup).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Tool, ToolResult } from '@amplifier/core';
import { createTestCoordinator } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  manifest,
  NODE_TOOL,
  PYTHON_TOOL,
  pgrep,
  SCRIPTS,
  tempDir,
  writeTool,
} from './__fixtures__/tools.js';
import { mount } from './index.js';

let root: string;
let remove: () => void;
let cleanups: (() => Promise<void> | void)[] = [];
beforeEach(() => {
  ({ dir: root, remove } = tempDir('tool-agentpm-run-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
  remove();
});

/** Mount the module with these tools and config; returns the mounted tools by name. */
/** Unconfined by default: these tests are about process groups and files outside a workspace (sandbox.test.ts confines). */
async function mounted(tools: string[], config: Record<string, unknown> = {}) {
  const coordinator = createTestCoordinator({ bare: true });
  const cleanup = await mount(coordinator, { tools, sandbox: 'off', ...config });
  cleanups.push(cleanup);
  const get = (name: string): Tool => {
    const tool = coordinator.get('tools', name);
    if (tool === undefined) throw new Error(`tool ${name} not mounted`);
    return tool;
  };
  return { coordinator, cleanup, get };
}

const objectSchema = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
});

function errorOf(result: ToolResult): { message: string; type?: string; [k: string]: unknown } {
  expect(result.success).toBe(false);
  expect(result.output).toBe(result.error!.message);
  return result.error!;
}

describe('example tools', () => {
  it('runs the Node example and returns its validated output', async () => {
    const { get } = await mounted([NODE_TOOL]);
    const tool = get('text_stats');
    expect(tool.description).toBe('Counts the words and characters of a text and returns it in upper case.');
    expect(tool.inputSchema).toMatchObject({ required: ['text'] });
    expect(await tool.execute({ text: 'héllo big world' })).toEqual({
      success: true,
      output: { words: 3, chars: 15, upper: 'HÉLLO BIG WORLD' },
    });
  });

  it('runs the Python 3 example with its declared default and a config value for its variable', async () => {
    const { get } = await mounted([PYTHON_TOOL]);
    expect(await get('word_freq').execute({ text: 'The cat and the hat and THE bat', top: 2 })).toEqual({
      success: true,
      output: {
        top: [
          { word: 'the', count: 3 },
          { word: 'and', count: 2 },
        ],
        case: 'lower',
      },
    });
    const keep = await mounted([PYTHON_TOOL], { env: { WORD_FREQ_CASE: 'keep' } });
    expect(await keep.get('word_freq').execute({ text: 'B b B', top: 1 })).toEqual({
      success: true,
      output: { top: [{ word: 'B', count: 2 }], case: 'keep' },
    });
  });

  it('invalid input is refused before anything runs', async () => {
    const { get } = await mounted([NODE_TOOL]);
    const error = errorOf(await get('text_stats').execute({ text: 42 }));
    expect(error.type).toBe('invalid_input');
    expect(error.message).toBe(
      'invalid input for text_stats; the tool was not run:\n  - text must be string',
    );
  });
});

describe('misbehaving tools', () => {
  it('a tool that prints garbage: invalid JSON error with the start of what it printed', async () => {
    const folder = writeTool(root, 'garbage', SCRIPTS.garbage);
    const error = errorOf(await (await mounted([folder])).get('garbage').execute({}));
    expect(error.type).toBe('invalid_json');
    expect(error.message).toMatch(
      /^garbage printed invalid JSON on stdout \(.+\); it began with: "Result: 42/,
    );
  });

  it('a tool that prints nothing: invalid JSON error saying so', async () => {
    const folder = writeTool(root, 'silent', 'await readInput();');
    const error = errorOf(await (await mounted([folder])).get('silent').execute({}));
    expect(error).toMatchObject({
      type: 'invalid_json',
      message: 'silent printed nothing on stdout (expected one JSON document)',
    });
  });

  it('a non-zero exit is an error naming the code, with the tail of stderr', async () => {
    const folder = writeTool(root, 'exits', SCRIPTS.exitCode);
    const error = errorOf(await (await mounted([folder])).get('exits').execute({}));
    expect(error).toMatchObject({ type: 'exit', exit_code: 3 });
    expect(error.message).toBe(
      'exits exited with code 3\nstderr (last 2000 bytes at most):\nloading...\nboom: the widget is broken',
    );
  });

  it('only the last 2000 bytes of stderr reach the message', async () => {
    const folder = writeTool(
      root,
      'noisy',
      `await readInput(); process.stderr.write('a'.repeat(5000) + 'THE END'); process.exit(1);`,
    );
    const error = errorOf(await (await mounted([folder])).get('noisy').execute({}));
    const stderr = String(error.stderr);
    expect(stderr.length).toBe(2000);
    expect(stderr.endsWith('THE END')).toBe(true);
  });

  it('an output that violates the outputs schema is an error listing what is wrong', async () => {
    const folder = writeTool(
      root,
      'bad-output',
      SCRIPTS.badOutput,
      manifest('bad-output', { outputs: objectSchema({ count: { type: 'integer' } }, ['count']) }),
    );
    const error = errorOf(await (await mounted([folder])).get('bad_output').execute({}));
    expect(error.type).toBe('invalid_output');
    expect(error.message).toBe(
      'bad_output returned output that does not match its outputs schema:\n  - count must be integer',
    );
  });

  it('a tool that hangs is killed at the timeout with its children', async () => {
    const folder = writeTool(
      root,
      'hang',
      SCRIPTS.hang,
      manifest('hang', { inputs: objectSchema({ marker: { type: 'string' }, pidfile: { type: 'string' } }) }),
    );
    const marker = `4242.${process.pid}${Date.now() % 100000}`;
    const pidfile = path.join(root, 'grandchild.pid');
    // The timeout is what is under test: short, but long enough for node to start and spawn sleep.
    const { get } = await mounted([folder], { timeout_ms: 1500, kill_grace_ms: 200 });
    const result = await get('hang').execute({ marker, pidfile });
    const error = errorOf(result);
    expect(error.type).toBe('timeout');
    expect(error.message).toBe('hang timed out after 1500 ms; its processes were killed');
    // The grandchild was running (its pid was written) and is gone now.
    expect(fs.existsSync(pidfile)).toBe(true);
    expect(pgrep(`sleep ${marker}`)).toEqual([]);
  });

  it('a tool that writes 100 MB to stdout is stopped at max_output_bytes with bounded memory', async () => {
    const folder = writeTool(
      root,
      'flood',
      SCRIPTS.flood,
      manifest('flood', { inputs: objectSchema({ mb: { type: 'integer' }, donefile: { type: 'string' } }) }),
    );
    const donefile = path.join(root, 'flood.done');
    const { get } = await mounted([folder]);
    const before = process.memoryUsage().rss;
    const result = await get('flood').execute({ mb: 100, donefile });
    const growth = process.memoryUsage().rss - before;
    const error = errorOf(result);
    expect(error.type).toBe('output_too_large');
    expect(error.message).toBe(
      'flood wrote more than 1048576 bytes to stdout (max_output_bytes); it was stopped',
    );
    // It never got to write the rest.
    expect(fs.existsSync(donefile)).toBe(false);
    expect(growth).toBeLessThan(40 * 1024 * 1024);
  });

  it('a tool that floods stderr is stopped too', async () => {
    const folder = writeTool(
      root,
      'stderr-flood',
      `await readInput(); for (;;) process.stderr.write('x'.repeat(65536));`,
    );
    const { get } = await mounted([folder], { max_output_bytes: 100_000 });
    const error = errorOf(await get('stderr_flood').execute({}));
    expect(error.type).toBe('output_too_large');
    expect(error.message).toMatch(
      /^stderr_flood wrote more than 100000 bytes to stderr \(max_output_bytes\); it was stopped/,
    );
  });

  it('processes a tool leaves behind after answering are stopped', async () => {
    const folder = writeTool(
      root,
      'leaves-child',
      `
import { spawn } from 'node:child_process';
const { marker } = await readInput();
spawn('sleep', [marker], { stdio: 'ignore' }).unref();
process.stdout.write(JSON.stringify({ ok: true }));
process.exit(0);
`,
      manifest('leaves-child', { inputs: objectSchema({ marker: { type: 'string' } }) }),
    );
    const marker = `4243.${process.pid}${Date.now() % 100000}`;
    const { get } = await mounted([folder], { kill_grace_ms: 200 });
    // `{ ok: true }` is AgentPM's success reply: its payload (nothing here) is the output.
    expect(await get('leaves_child').execute({ marker })).toEqual({ success: true, output: {} });
    expect(pgrep(`sleep ${marker}`)).toEqual([]);
  });
});

describe('working directory', () => {
  it('the process runs in entrypoint.cwd inside the tool folder', async () => {
    const folder = path.join(root, 'cwd-tool');
    fs.mkdirSync(path.join(folder, 'bin'), { recursive: true });
    fs.writeFileSync(
      path.join(folder, 'bin', 'main.mjs'),
      `process.stdin.resume(); process.stdin.on('end', () => process.stdout.write(JSON.stringify({ cwd: process.cwd() })));`,
    );
    fs.writeFileSync(
      path.join(folder, 'agent.json'),
      JSON.stringify(
        manifest('cwd-tool', {
          entrypoint: { command: 'node', args: ['main.mjs'], cwd: 'bin' },
          files: ['bin/*'],
        }),
      ),
    );
    const { get } = await mounted([folder]);
    expect(await get('cwd_tool').execute({})).toEqual({
      success: true,
      output: { cwd: path.join(folder, 'bin') },
    });
  });
});

describe('environment isolation', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it('host variables like OPENAI_API_KEY never reach the tool; declared ones, PATH and the pass list do', async () => {
    process.env.OPENAI_API_KEY = 'sk-test-LEAKME-agentpm';
    process.env.AGENTPM_DECLARED = 'from-host';
    const folder = writeTool(
      root,
      'env-dump',
      SCRIPTS.envDump,
      manifest('env-dump', {
        entrypoint: { command: 'node', args: ['main.mjs'], env: { FIXED: 'yes' } },
        environment: {
          vars: {
            AGENTPM_DECLARED: { required: true },
            AGENTPM_WITH_DEFAULT: { default: 'dflt' },
            AGENTPM_FROM_CONFIG: { required: true },
          },
        },
      }),
    );
    const { get } = await mounted([folder], {
      env: { AGENTPM_FROM_CONFIG: 'cfg', OPENAI_API_KEY: 'not declared' },
    });
    const result = await get('env_dump').execute({});
    expect(result.success).toBe(true);
    const env = (result.output as { env: Record<string, string> }).env;
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(JSON.stringify(env)).not.toContain('LEAKME');
    const expected: Record<string, string> = {
      PATH: process.env.PATH!,
      FIXED: 'yes',
      AGENTPM_DECLARED: 'from-host',
      AGENTPM_WITH_DEFAULT: 'dflt',
      AGENTPM_FROM_CONFIG: 'cfg',
    };
    for (const name of ['HOME', 'LANG', 'TMPDIR'])
      if (process.env[name] !== undefined) expected[name] = process.env[name]!;
    // Node itself may add nothing; anything else would be a leak. The reaper's markers
    // (AMPLIFIER_PROC_*, unconfined runs) and bwrap's PWD (confined runs) are no secrets.
    for (const name of Object.keys(env))
      if (name.startsWith('AMPLIFIER_PROC_') || name === 'PWD') delete env[name];
    expect(env).toEqual(expected);
  });

  it('a manifest that declares secret-named variables gets them only with the pass_env opt-in (issue 16, point 3)', async () => {
    process.env.OPENAI_API_KEY = 'sk-test-LEAKME-declared';
    process.env.AGENTPM_TEST_GITHUB_TOKEN = 'ghp-LEAKME';
    process.env.AWS_SECRET_ACCESS_KEY = 'aws-LEAKME';
    const folder = writeTool(
      root,
      'wants-keys',
      SCRIPTS.envDump,
      manifest('wants-keys', {
        entrypoint: { command: 'node', args: ['main.mjs'], env: { COPY: '$OPENAI_API_KEY' } },
        environment: {
          vars: {
            OPENAI_API_KEY: { required: false },
            AGENTPM_TEST_GITHUB_TOKEN: { required: false },
            AWS_SECRET_ACCESS_KEY: { default: 'placeholder' },
          },
        },
      }),
    );
    const plain = await mounted([folder]);
    const denied = (await plain.get('wants_keys').execute({})).output as { env: Record<string, string> };
    expect(JSON.stringify(denied)).not.toContain('LEAKME');
    expect(denied.env.AWS_SECRET_ACCESS_KEY).toBe('placeholder');
    // entrypoint.env values are literal text: nothing is expanded from the host.
    expect(denied.env.COPY).toBe('$OPENAI_API_KEY');
    await plain.cleanup();
    const optedIn = await mounted([folder], { pass_env: ['PATH', 'OPENAI_API_KEY'] });
    const granted = (await optedIn.get('wants_keys').execute({})).output as { env: Record<string, string> };
    expect(granted.env.OPENAI_API_KEY).toBe('sk-test-LEAKME-declared');
    expect(granted.env.AGENTPM_TEST_GITHUB_TOKEN).toBeUndefined();
    expect(granted.env.AWS_SECRET_ACCESS_KEY).toBe('placeholder');
  });
});

describe('cancellation and cleanup', () => {
  function hangTool() {
    return writeTool(
      root,
      'hang',
      SCRIPTS.hang,
      manifest('hang', { inputs: objectSchema({ marker: { type: 'string' }, pidfile: { type: 'string' } }) }),
    );
  }

  /** Resolves once `file` exists (the tool wrote it), watching the directory. */
  function fileAppears(file: string): Promise<void> {
    return new Promise((resolve) => {
      const watcher = fs.watch(path.dirname(file), () => {
        if (fs.existsSync(file)) {
          watcher.close();
          resolve();
        }
      });
      if (fs.existsSync(file)) {
        watcher.close();
        resolve();
      }
    });
  }

  it("the call's signal kills the whole process group", async () => {
    const marker = `4244.${process.pid}${Date.now() % 100000}`;
    const pidfile = path.join(root, 'abort.pid');
    const { get } = await mounted([hangTool()], { kill_grace_ms: 200 });
    const controller = new AbortController();
    const call = get('hang').execute({ marker, pidfile }, { signal: controller.signal });
    await fileAppears(pidfile);
    expect(pgrep(`sleep ${marker}`)).toHaveLength(1);
    controller.abort();
    const error = errorOf(await call);
    expect(error.type).toBe('aborted');
    expect(error.message).toMatch(/^hang was cancelled after \d+\.\ds; its processes were stopped$/);
    expect(pgrep(`sleep ${marker}`)).toEqual([]);
  });

  it('a tool that ignores SIGTERM gets SIGKILL after kill_grace_ms', async () => {
    const pidfile = path.join(root, 'stubborn.pid');
    const folder = writeTool(
      root,
      'stubborn',
      `
import fs from 'node:fs';
const { pidfile } = await readInput();
process.on('SIGTERM', () => {});
fs.writeFileSync(pidfile + '.tmp', String(process.pid));
fs.renameSync(pidfile + '.tmp', pidfile);
setInterval(() => {}, 1000);
`,
      manifest('stubborn', { inputs: objectSchema({ pidfile: { type: 'string' } }) }),
    );
    const { get } = await mounted([folder], { kill_grace_ms: 100 });
    const controller = new AbortController();
    const call = get('stubborn').execute({ pidfile }, { signal: controller.signal });
    await fileAppears(pidfile);
    const pid = Number(fs.readFileSync(pidfile, 'utf8'));
    controller.abort();
    const error = errorOf(await call);
    expect(error).toMatchObject({ type: 'aborted', signal: 'SIGKILL' });
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });

  it('an already-aborted signal starts nothing', async () => {
    const pidfile = path.join(root, 'never.pid');
    const { get } = await mounted([hangTool()]);
    const error = errorOf(
      await get('hang').execute({ marker: '4245.1', pidfile }, { signal: AbortSignal.abort() }),
    );
    expect(error).toMatchObject({ type: 'aborted', message: 'hang was cancelled before it started' });
    expect(fs.existsSync(pidfile)).toBe(false);
  });

  it('cleanup kills calls still running and unmounts the tools', async () => {
    const marker = `4246.${process.pid}${Date.now() % 100000}`;
    const pidfile = path.join(root, 'cleanup.pid');
    const { get, cleanup, coordinator } = await mounted([hangTool()], { kill_grace_ms: 200 });
    const call = get('hang').execute({ marker, pidfile });
    await fileAppears(pidfile);
    await cleanup();
    expect(pgrep(`sleep ${marker}`)).toEqual([]);
    expect(errorOf(await call).type).toBe('aborted');
    expect(coordinator.get('tools').size).toBe(0);
  });

  it('an interpreter that disappears after loading is a clear spawn error', async () => {
    const link = path.join(root, 'bin', 'node');
    fs.mkdirSync(path.dirname(link));
    fs.symlinkSync(process.execPath, link);
    const folder = writeTool(
      root,
      'gone',
      SCRIPTS.echo,
      manifest('gone', { entrypoint: { command: link, args: ['main.mjs'] } }),
    );
    const { get } = await mounted([folder]);
    fs.unlinkSync(link);
    const error = errorOf(await get('gone').execute({}));
    expect(error.type).toBe('spawn_failed');
    expect(error.message).toMatch(/^gone could not be started \(.*bin\/node\): .*ENOENT/);
  });
});
