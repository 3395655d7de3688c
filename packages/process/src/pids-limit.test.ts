import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { limitProcesses, pidsLimitKind } from './pids-limit.js';

describe('limitProcesses', () => {
  it('empty() tells, with a cgroup only, whether a process of the call is left: a background one after its parent exited is', async () => {
    const limited = limitProcesses('/bin/sh', ['-c', 'echo up; read _; sleep 1000 & echo "$!"; read _'], 32);
    if (pidsLimitKind() !== 'cgroup') {
      // Without a cgroup there is no one-read answer: callers look through /proc.
      expect(limited.empty).toBeUndefined();
      await limited.release();
      return;
    }
    const empty = limited.empty!;
    const child = spawn(limited.command, limited.args, { stdio: ['pipe', 'pipe', 'ignore'] });
    const lines: string[] = [];
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => lines.push(...chunk.split('\n')));
    try {
      await expect.poll(() => lines.includes('up')).toBe(true);
      expect(empty()).toBe(false);
      child.stdin!.write('\n');
      await expect.poll(() => lines.some((line) => /^\d+$/.test(line))).toBe(true);
      const background = Number(lines.find((line) => /^\d+$/.test(line)));
      child.stdin!.end('\n');
      await once(child, 'exit');
      // The shell is gone, its background sleep still runs in the cgroup.
      expect(empty()).toBe(false);
      process.kill(background, 'SIGKILL');
      await expect.poll(() => empty()).toBe(true);
    } finally {
      child.kill('SIGKILL');
      await limited.release();
    }
  });
});
