/** Output piped to a reader arrives whole: the CLI exits only once stdout and stderr have drained. */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, removeTempDirs, tempDir } from './__fixtures__/cli.js';
import { SessionStore } from './sessions.js';

afterEach(removeTempDirs);

/** Run the CLI with stdout on a pipe read by this process; every byte it wrote, and the exit code. */
function runPiped(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks) }));
  });
}

describe('large output on a pipe', () => {
  it('session show --json prints several megabytes whole', async () => {
    const home = tempDir();
    const cwd = tempDir();
    const store = new SessionStore(home);
    const record = store.create({
      session_id: 'big',
      created: new Date().toISOString(),
      updated: new Date().toISOString(),
      cwd,
      provider: 'mock',
      model: null,
      plan: {},
      options: { plan_file: null, provider: 'mock', model: null, max_iterations: null },
      turn_count: 200,
      status: 'completed',
      name: null,
      pid: process.pid,
      cli_version: '0.0.0',
    });
    const line = 'x'.repeat(20_000);
    for (let i = 0; i < 200; i++) {
      record.appendMessage({ role: 'user', content: `question ${i} ${line}` });
      record.appendMessage({ role: 'assistant', content: `answer ${i} ${line}` });
    }
    record.close();

    const { code, stdout } = await runPiped(['session', 'show', 'big', '--json'], cwd, cliEnv(home));
    expect(code).toBe(0);
    expect(stdout.length).toBeGreaterThan(8_000_000);
    const document = JSON.parse(stdout.toString('utf8')) as { messages: Array<{ content: string }> };
    expect(document.messages).toHaveLength(400);
    expect(document.messages.at(-1)?.content).toBe(`answer 199 ${line}`);
  });
});
