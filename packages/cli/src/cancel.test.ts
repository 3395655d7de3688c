import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CliProcess,
  cliEnv,
  jsonLines,
  pgrep,
  removeTempDirs,
  sessionDirs,
  tempDir,
  until,
  writeMockPlan,
} from './__fixtures__/cli.js';

const leftovers: string[] = [];
afterEach(() => {
  // Safety net only: a failing test must not leave a sleep behind.
  for (const marker of leftovers.splice(0)) for (const pid of pgrep(marker)) process.kill(pid, 'SIGKILL');
  removeTempDirs();
});

function uniqueSleep(): string {
  const marker = `sleep 1000.${process.pid}${Math.floor(Math.random() * 1e6)}`;
  leftovers.push(marker);
  return marker;
}

function metadata(home: string): { status: string; turn_count: number } {
  const [dir] = sessionDirs(home);
  return JSON.parse(fs.readFileSync(path.join(dir!, 'metadata.json'), 'utf8'));
}

describe('Ctrl+C', () => {
  it('while the provider thinks: the first press cancels gracefully, the second at once; exit 130', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [{ delay_ms: 100_000, text: 'too late' }]);
    const cli = new CliProcess(['run', '--plan', plan, '--json', 'think hard'], { cwd, env: cliEnv(home) });
    await cli.waitFor('stdout', '"event":"provider:request"');
    cli.kill('SIGINT');
    await cli.waitFor('stderr', 'Cancelling');
    expect(cli.stderr).toContain('Press Ctrl+C again to stop now');
    cli.kill('SIGINT');
    const exit = await cli.done();
    expect(exit.code).toBe(130);
    expect(exit.stderr).toContain('Stopping now');
    const lines = jsonLines(exit.stdout);
    // The coordinator's requests carry the level (the loop adds its own record of the cancellation).
    const levels = lines
      .filter((l) => l.event === 'cancel:requested')
      .map((l) => (l.data as { level?: string }).level)
      .filter((level) => level !== undefined);
    expect(levels).toEqual(['graceful', 'immediate']);
    expect(lines.find((l) => l.type === 'result')).toMatchObject({ status: 'cancelled' });
    expect(metadata(home).status).toBe('cancelled');
  });

  it('while a bash tool runs: graceful lets it run, the second press kills it; no process survives; exit 130', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const marker = uniqueSleep();
    const plan = writeMockPlan(cwd, [
      { tool_calls: [{ id: 'c1', name: 'bash', arguments: { command: `${marker}; echo after` } }] },
      'never reached',
    ]);
    const cli = new CliProcess(['run', '--plan', plan, 'run it'], { cwd, env: cliEnv(home) });
    await cli.waitFor('stderr', '→ bash');
    await until(() => pgrep(marker).length > 0, 'the sleep to start');
    cli.kill('SIGINT');
    await cli.waitFor('stderr', 'Cancelling');
    // Graceful: the running command is left alone.
    expect(pgrep(marker).length).toBeGreaterThan(0);
    cli.kill('SIGINT');
    const exit = await cli.done();
    expect(exit.code).toBe(130);
    expect(exit.stdout).not.toContain('never reached');
    expect(pgrep(marker)).toEqual([]);
    expect(exit.stderr).toMatch(/✗ bash sleep 1000/);
  });

  it('graceful: the running tool finishes, then the turn stops before the next provider call; exit 130', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const gate = path.join(cwd, 'gate.fifo');
    execFileSync('mkfifo', [gate]);
    const plan = writeMockPlan(cwd, [
      { tool_calls: [{ id: 'c1', name: 'bash', arguments: { command: `cat ${gate}` } }] },
      'never reached',
    ]);
    const cli = new CliProcess(['run', '--plan', plan, 'wait for the gate'], { cwd, env: cliEnv(home) });
    await cli.waitFor('stderr', '→ bash');
    await until(() => pgrep(`cat ${gate}`).length > 0, 'cat to open the fifo');
    cli.kill('SIGINT');
    await cli.waitFor('stderr', 'Cancelling');
    fs.writeFileSync(gate, 'released\n');
    const exit = await cli.done();
    expect(exit.code).toBe(130);
    expect(exit.stderr).toMatch(/✓ bash cat /);
    expect(exit.stdout).not.toContain('never reached');
    const [dir] = sessionDirs(home);
    const transcript = fs.readFileSync(path.join(dir!, 'transcript.jsonl'), 'utf8');
    expect(transcript).toContain('released');
    expect(transcript).not.toContain('never reached');
  });

  it('on a terminal, Ctrl+C keypresses cancel the same way (pseudo-terminal)', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, [{ delay_ms: 100_000, text: 'too late' }]);
    const cli = new CliProcess(['run', '--plan', plan, 'think hard'], {
      cwd,
      env: cliEnv(home, { CI: undefined, TERM: 'xterm' }),
      tty: true,
    });
    await cli.waitFor('stdout', 'mock is thinking');
    cli.write('\u0003');
    await cli.waitFor('stdout', 'Cancelling');
    cli.write('\u0003');
    const exit = await cli.done();
    expect(exit.code).toBe(130);
    expect(exit.stdout).toContain('Cancelled.');
    expect(metadata(home).status).toBe('cancelled');
  });

  it('while web_fetch waits on a server: the request socket is closed; exit 130', async () => {
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
    // A server that never answers.
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
          {
            tool_calls: [
              { id: 'c1', name: 'web_fetch', arguments: { url: `http://127.0.0.1:${port}/slow` } },
            ],
          },
          'never reached',
        ],
        { tools: [{ module: 'tool-web', config: { allowed_hosts: [`127.0.0.1:${port}`], timeout: 600 } }] },
      );
      const cli = new CliProcess(['run', '--plan', plan, 'fetch'], { cwd, env: cliEnv(home) });
      await arrived;
      cli.kill('SIGINT');
      await cli.waitFor('stderr', 'Cancelling');
      cli.kill('SIGINT');
      const exit = await cli.done();
      expect(exit.code).toBe(130);
      await closed;
      expect(exit.stderr).toMatch(/✗ web_fetch http:\/\/127\.0\.0\.1/);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
