import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CliProcess,
  cliEnv,
  removeTempDirs,
  sessionDirs,
  tempDir,
  writeFile,
  writeMockPlan,
} from './__fixtures__/cli.js';

afterEach(removeTempDirs);

/** The REPL needs a terminal: every test runs it in a pseudo-terminal, output on `stdout`. */
function repl(home: string, cwd: string, args: string[]): CliProcess {
  return new CliProcess(['run', ...args], {
    cwd,
    env: cliEnv(home, { NO_COLOR: '1', CI: undefined }),
    tty: true,
  });
}

/** Wait for the n-th prompt (the REPL prints "› " each time it is ready). */
async function prompt(cli: CliProcess, n: number): Promise<void> {
  await cli.waitFor('stdout', new RegExp(`(›[^›]*){${n}}`));
}

describe('REPL', () => {
  it('without a key and without a prompt, a terminal gets the REPL on the offline demo', async () => {
    const home = tempDir();
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, 'README.md'), '# Tiny\n');
    const cli = repl(home, cwd, []);
    await prompt(cli, 1);
    expect(cli.stdout).toContain('offline demo');
    cli.write('show me around\r');
    await cli.waitFor('stdout', 'Here is what the real tools found');
    await prompt(cli, 2);
    cli.write('/exit\r');
    const exit = await cli.done();
    expect(exit.code, exit.stdout).toBe(0);
  });

  it('a session left normally after a failed turn is completed, not failed', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [{ error: { kind: 'authentication', message: 'bad key' } }]);
    const cli = repl(home, cwd, ['--plan', plan]);
    await prompt(cli, 1);
    cli.write('hi\r');
    await cli.waitFor('stdout', 'bad key');
    await prompt(cli, 2);
    cli.write('/exit\r');
    const exit = await cli.done();
    expect(exit.code, exit.stdout).toBe(0);
    const [dir] = sessionDirs(home);
    const metadata = JSON.parse(fs.readFileSync(path.join(dir!, 'metadata.json'), 'utf8'));
    expect(metadata.status).toBe('completed');
  });

  it('runs turns, answers slash commands, keeps history, and leaves with /exit', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['pong'], { mock: { repeat_last: true } });
    const cli = repl(home, cwd, ['--plan', plan]);
    await prompt(cli, 1);
    expect(cli.stdout).toContain('/help for commands');
    cli.write('/help\r');
    await cli.waitFor('stdout', '/save [file]');
    await prompt(cli, 2);
    cli.write('ping\r');
    await cli.waitFor('stdout', 'pong');
    await prompt(cli, 3);
    cli.write('/tools\r');
    await cli.waitFor('stdout', 'bash_output');
    await prompt(cli, 4);
    cli.write('/status\r');
    await cli.waitFor('stdout', '1, 2 messages in context');
    await cli.waitFor('stdout', /sandbox {3}tool-bash: (auto|required|off)/);
    await prompt(cli, 5);
    cli.write('/save saved.json\r');
    await cli.waitFor('stdout', 'Saved 2 messages');
    await prompt(cli, 6);
    cli.write('/nope\r');
    await cli.waitFor('stdout', 'Unknown command /nope');
    await prompt(cli, 7);
    cli.write('/clear\r');
    await cli.waitFor('stdout', 'Conversation cleared.');
    await prompt(cli, 8);
    cli.write('/exit\r');
    const exit = await cli.done();
    expect(exit.code, exit.stdout).toBe(0);

    const saved = JSON.parse(fs.readFileSync(path.join(cwd, 'saved.json'), 'utf8'));
    expect(saved.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    const [dir] = sessionDirs(home);
    const metadata = JSON.parse(fs.readFileSync(path.join(dir!, 'metadata.json'), 'utf8'));
    expect(metadata).toMatchObject({ turn_count: 1, status: 'completed' });
    // /clear emptied the transcript too.
    expect(fs.readFileSync(path.join(dir!, 'transcript.jsonl'), 'utf8')).toBe('');
    const history = fs.readFileSync(path.join(home, 'repl_history'), 'utf8');
    expect(history.split('\n')).toContain('ping');
  });

  it('/model shows and switches the model, /cost sums the calls, /agents lists the roster, /compact compacts', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const long = (n: number): string => `answer ${n} ${'word '.repeat(600)}`;
    const plan = writeFile(
      path.join(cwd, 'plan.json'),
      JSON.stringify({
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        providers: [
          {
            module: 'provider-mock',
            config: {
              script: [
                { text: long(1), usage: { input_tokens: 1200, output_tokens: 34, cost_usd: '0.0105' } },
                { text: long(2), usage: { input_tokens: 800, output_tokens: 66, cost_usd: '0.002' } },
                { text: long(3), usage: { input_tokens: 10, output_tokens: 5 } },
              ],
            },
          },
        ],
        tools: [{ module: 'tool-delegate' }],
        hooks: [{ module: 'hooks-logging' }],
        agents: {
          reviewer: { description: 'Reviews a change.\nSecond line not shown.' },
          'docs-writer': { meta: { description: 'Writes the docs.' } },
        },
      }),
    );
    const cli = repl(home, cwd, ['--plan', plan]);
    let n = 1;
    const next = async (line: string, shows: string | RegExp): Promise<void> => {
      await prompt(cli, n++);
      cli.write(`${line}\r`);
      await cli.waitFor('stdout', shows);
    };
    await next('/help', '/cost');
    await next('/model', /model {5}mock-model \(mock\)/);
    await next('/cost', /calls {5}0 model calls[\s\S]*cost {6}\$0/);
    await next('first question', 'answer 1');
    await next('/model tiny-2', 'Model: tiny-2 (mock); the next turn uses it.');
    await next('second question', 'answer 2');
    await next('/status', 'provider  mock, model tiny-2');
    await next('third question', 'answer 3');
    await next(
      '/cost',
      /tokens {4}2,010 in, 105 out[\s\S]*cost {6}\$0\.0125 \(1 call without a price not counted\)/,
    );
    await next('/agents', /docs-writer {2}Writes the docs\.[\s\S]*reviewer {5}Reviews a change\./);
    await next('/compact', /Compacted: 6 → \d+ messages, about \d+ → \d+ tokens/);
    await prompt(cli, n++);
    cli.write('/exit\r');
    const exit = await cli.done();
    expect(exit.code, exit.stdout).toBe(0);
    expect(exit.stdout).not.toContain('Second line not shown');
    const [dir] = sessionDirs(home);
    const metadata = JSON.parse(fs.readFileSync(path.join(dir!, 'metadata.json'), 'utf8'));
    // The switch is remembered (continue uses it); the transcript keeps every message after /compact.
    expect(metadata.model).toBe('tiny-2');
    const transcript = fs.readFileSync(path.join(dir!, 'transcript.jsonl'), 'utf8').trim().split('\n');
    expect(transcript).toHaveLength(6);
    // The model the provider was asked for: the events of the calls after the switch.
    const events = fs.readFileSync(path.join(dir!, 'events.jsonl'), 'utf8');
    const models = events
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.event === 'llm:response')
      .map((e) => e.data.model);
    expect(models).toEqual(['mock-model', 'tiny-2', 'tiny-2']);
  });

  it('/agents without the delegate tool says the model cannot delegate', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['x'], { tools: [] });
    const cli = repl(home, cwd, ['--plan', plan]);
    await prompt(cli, 1);
    cli.write('/agents\r');
    await cli.waitFor('stdout', 'The delegate tool is not mounted');
    await cli.waitFor('stdout', 'No agents in this session');
    await prompt(cli, 2);
    cli.write('/exit\r');
    expect((await cli.done()).code).toBe(0);
  });

  it('Ctrl+C cancels the running turn and the REPL goes on; Ctrl+C twice at an empty prompt leaves (130)', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [{ delay_ms: 100_000, text: 'too late' }, 'second answer']);
    const cli = repl(home, cwd, ['--plan', plan]);
    await prompt(cli, 1);
    cli.write('think\r');
    await cli.waitFor('stdout', 'mock is thinking');
    cli.write('\u0003');
    await cli.waitFor('stdout', 'Cancelling');
    cli.write('\u0003');
    await cli.waitFor('stdout', 'Cancelled.');
    await prompt(cli, 2);
    cli.write('again\r');
    await cli.waitFor('stdout', 'second answer');
    await prompt(cli, 3);
    cli.write('\u0003');
    await cli.waitFor('stdout', 'press Ctrl+C again');
    cli.write('\u0003');
    const exit = await cli.done();
    expect(exit.code).toBe(130);
  });

  it('Ctrl+C during web_fetch closes the request socket while the REPL keeps running', async () => {
    const home = tempDir();
    const cwd = tempDir();
    let socketClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      socketClosed = resolve;
    });
    let requested!: () => void;
    const arrived = new Promise<void>((resolve) => {
      requested = resolve;
    });
    const server = http.createServer((req) => {
      req.socket.on('close', () => socketClosed());
      requested();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const plan = writeMockPlan(
        cwd,
        [
          { tool_calls: [{ id: 'c1', name: 'web_fetch', arguments: { url: `http://127.0.0.1:${port}/` } }] },
          'after',
        ],
        { tools: [{ module: 'tool-web', config: { allowed_hosts: [`127.0.0.1:${port}`], timeout: 600 } }] },
      );
      const cli = repl(home, cwd, ['--plan', plan]);
      await prompt(cli, 1);
      cli.write('fetch\r');
      await arrived;
      cli.write('\u0003');
      await cli.waitFor('stdout', 'Cancelling');
      cli.write('\u0003');
      await cli.waitFor('stdout', 'Cancelled.');
      // The REPL is still running (it waits at its prompt), and the socket is already gone.
      await closed;
      let exited = false;
      void cli.exited.then(() => {
        exited = true;
      });
      await prompt(cli, 2);
      expect(exited).toBe(false);
      cli.write('/exit\r');
      expect((await cli.done()).code, cli.stdout).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('approval questions during a turn go through the REPL', async () => {
    const home = tempDir();
    const cwd = tempDir();
    fs.mkdirSync(path.join(cwd, 'ask'));
    fs.writeFileSync(
      path.join(cwd, 'ask', 'index.js'),
      "export async function mount(c) { return c.hooks.register('tool:pre', () => ({ action: 'ask_user', approval_prompt: 'May I?' })); }\n",
    );
    const marker = path.join(cwd, 'ran.txt');
    const plan = writeMockPlan(
      cwd,
      [{ tool_calls: [{ id: 'c1', name: 'bash', arguments: { command: `touch ${marker}` } }] }, 'done'],
      { hooks: [{ module: 'ask', source: path.join(cwd, 'ask') }] },
    );
    const cli = repl(home, cwd, ['--plan', plan]);
    await prompt(cli, 1);
    cli.write('go\r');
    await cli.waitFor('stdout', 'May I? [y/N]');
    cli.write('y\r');
    await cli.waitFor('stdout', 'done');
    await prompt(cli, 2);
    expect(fs.existsSync(marker)).toBe(true);
    cli.write('/exit\r');
    expect((await cli.done()).code).toBe(0);
  });
});
