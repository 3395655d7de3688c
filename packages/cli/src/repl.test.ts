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
