/**
 * Untrusted names never reach the terminal raw (issue 37): a hostile MCP
 * server's tool names and descriptions in `tool list`, and the tool names and
 * arguments a model sends back in the live display of a run.
 */
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { HookRegistry } from '@amplifier/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cliEnv,
  jsonLines,
  removeTempDirs,
  runCli,
  sessionDirs,
  tempDir,
  writeMockPlan,
} from './__fixtures__/cli.js';
import { CliApproval } from './approval.js';
import { Display } from './display.js';
import { table } from './modules.js';

afterEach(removeTempDirs);

const FLOOD = fileURLToPath(
  new URL('../../../modules/tool-mcp/src/__fixtures__/flood-server.mjs', import.meta.url),
);
const ESC = '\u001b';
const BEL = '\u0007';
/** Anything a terminal acts on: ESC, C0 but LF, DEL, C1, bidi controls. */
const TERMINAL_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Hostile names as a model or a server could send them. */
const HOSTILE = [
  `${ESC}]0;pwned${BEL}bash`,
  `${ESC}]2;pwned${ESC}\\bash`,
  `${ESC}[31mbash${ESC}[0m`,
  `${ESC}[2J${ESC}[Hbash`,
  `\u009b31mbash`,
  `\u009d0;t\u009cbash`,
  'bash\rok_tool',
  'bash\u202Etxt.exe',
  `${ESC}]52;c;cm0gLXJmIH4=${BEL}bash`,
  `bash\n  ✓ fake_line`,
];

function streams() {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  err.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return { out, err, text: () => ({ stdout, stderr }) };
}

describe('the live display', () => {
  it.each(HOSTILE)('prints a tool name the model sent without its controls: %j', async (name) => {
    const { out, err, text } = streams();
    const display = new Display({ stdout: out, stderr: err, env: {} });
    const hooks = new HookRegistry();
    display.attach(hooks);
    await hooks.emit('tool:pre', {
      tool_name: name,
      tool_call_id: 'c1',
      tool_input: { command: `ls ${ESC}[8m` },
    });
    await hooks.emit('tool:post', {
      tool_name: name,
      tool_call_id: 'c1',
      result: { success: false, error: { message: `no such tool ${name}` } },
    });
    // A line feed in a name cannot fake a line of the display of calls.
    expect(text().stderr).not.toMatch(/^\s*✓ fake_line/m);
    display.warn(`warning about ${name}`);
    display.error(`error about ${name}`);
    display.showMessage(`message about ${name}`, 'warning', name);
    const { stderr } = text();
    expect(stderr).toContain('bash');
    expect(stderr).not.toMatch(TERMINAL_CONTROL);
  });

  it('escapes them in --json lines, keeping the data', async () => {
    const { out, err, text } = streams();
    const display = new Display({ stdout: out, stderr: err, env: {}, json: true });
    const hooks = new HookRegistry();
    display.attach(hooks);
    const name = `a\u009b31m\u202eb`;
    await hooks.emit('tool:pre', { tool_name: name, tool_call_id: 'c1', tool_input: {} });
    const { stdout } = text();
    expect(stdout).not.toMatch(TERMINAL_CONTROL);
    expect(JSON.stringify(jsonLines(stdout))).toContain(JSON.stringify(name).slice(1, -1));
  });
});

describe('the approval question', () => {
  it.each(HOSTILE)('shows the tool name of the call to approve without its controls: %j', async (name) => {
    const { out, err, text } = streams();
    const display = new Display({ stdout: out, stderr: err, env: {} });
    const asked: string[] = [];
    const approval = new CliApproval({
      display,
      interactive: true,
      ask: async (question) => {
        asked.push(question);
        return 'n';
      },
    });
    const request = {
      prompt: `Tool call needs approval: ${name}\nArguments:\n{}`,
      options: ['Allow', 'Deny'],
      timeout: 30,
      default: 'deny' as const,
      hook_name: `hooks-${name}`,
    };
    expect(await approval.requestApproval(request)).toBe('deny');
    expect(asked[0]).toContain('Tool call needs approval: ');
    expect(asked[0]).not.toMatch(TERMINAL_CONTROL);
    // Without a terminal the same prompt goes to stderr, stripped too.
    await new CliApproval({ display, interactive: false }).requestApproval(request);
    expect(text().stderr).not.toMatch(TERMINAL_CONTROL);
  });
});

describe('tables', () => {
  it('strip every cell and keep the columns aligned', () => {
    const printed = table(
      ['TOOL', 'DESCRIPTION'],
      HOSTILE.map((name) => [name, `about ${name}`]),
    );
    expect(printed).not.toMatch(TERMINAL_CONTROL);
    const lines = printed.trimEnd().split('\n');
    expect(lines).toHaveLength(HOSTILE.length + 1);
    const column = lines[0]!.indexOf('DESCRIPTION');
    for (const line of lines.slice(1)) expect(line.slice(column)).toMatch(/^about /);
  });
});

describe('amplifier tool list with a hostile MCP server', () => {
  it('lists at most 128 of its 20,000 tools, with names and descriptions stripped', async () => {
    const cwd = tempDir();
    const home = tempDir();
    const plan = writeMockPlan(cwd, [{ text: 'unused' }], {
      tools: [
        {
          module: 'tool-mcp',
          config: {
            config_files: false,
            sandbox: 'off',
            server_log_dir: tempDir(),
            servers: { flood: { command: process.execPath, args: [FLOOD, '--tools', '20000'] } },
          },
        },
      ],
    });
    const result = await runCli(['tool', 'list', '--plan', plan], { cwd, env: cliEnv(home) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(TERMINAL_CONTROL);
    expect(result.stderr).not.toMatch(TERMINAL_CONTROL);
    const rows = result.stdout.trimEnd().split('\n').slice(1);
    expect(rows).toHaveLength(128);
    expect(result.stdout).toContain('sets the title');
    expect(result.stderr).toMatch(/server 'flood' lists 20000 tools; 19872 are not mounted/);
    const json = await runCli(['tool', 'list', '--json', '--plan', plan], { cwd, env: cliEnv(home) });
    expect(json.stdout).not.toMatch(TERMINAL_CONTROL);
    expect(JSON.parse(json.stdout)).toHaveLength(128);
  });
});

describe('amplifier run', () => {
  it('shows the tool calls of a hostile model without their controls', async () => {
    const cwd = tempDir();
    const home = tempDir();
    const plan = writeMockPlan(cwd, [
      {
        tool_calls: HOSTILE.map((name, i) => ({
          id: `c${i}`,
          name,
          arguments: { command: `echo ${ESC}]0;args${BEL}hi` },
        })),
      },
      { text: 'done' },
    ]);
    const result = await runCli(['run', '--plan', plan, 'go'], { cwd, env: cliEnv(home) });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('bash');
    expect(result.stderr).not.toMatch(TERMINAL_CONTROL);
    // `session show` lists the same calls from the transcript, stripped too.
    const [dir] = sessionDirs(home);
    const shown = await runCli(['session', 'show', path.basename(dir!)], { cwd, env: cliEnv(home) });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('→ bash');
    expect(shown.stdout).not.toMatch(TERMINAL_CONTROL);
  });
});
