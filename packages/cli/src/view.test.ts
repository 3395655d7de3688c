import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, removeTempDirs, runCli, tempDir, writeMockPlan } from './__fixtures__/cli.js';

afterEach(removeTempDirs);

describe('amplifier view', () => {
  it('serves the stored sessions on 127.0.0.1 until Ctrl+C, without opening a browser with --no-open', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const plan = writeMockPlan(cwd, ['Viewed answer.']);
    const ran = await runCli(['run', '--plan', plan, 'look at me'], { cwd, env: cliEnv(home) });
    expect(ran.code, ran.stderr).toBe(0);

    const child = spawn(process.execPath, [BIN, 'view', '--no-open', '--port', '0'], {
      cwd,
      env: cliEnv(home),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /Viewer: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`view exited with ${code}: ${stderr}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const list = (await (await fetch(`${url}api/sessions`)).json()) as {
      sessions: { name: string; status: string }[];
    };
    expect(list.sessions).toMatchObject([{ name: 'look at me', status: 'completed' }]);
    expect((await fetch(url)).headers.get('content-type')).toContain('text/html');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('a bad --port is a usage error', async () => {
    const result = await runCli(['view', '--no-open', '--port', 'eighty'], {
      cwd: tempDir(),
      env: cliEnv(tempDir()),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('a port number from 0 to 65535');
  });
});
