import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startService } from './service.js';

/** Running (a zombie nobody reaps does not count). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('startService', () => {
  it('talks over stdio and exits when stdin closes', async () => {
    const service = await startService('cat', []);
    const echoed = new Promise<string>((resolve) =>
      service.stdout.once('data', (chunk) => resolve(String(chunk))),
    );
    service.stdin.write('hello\n');
    expect(await echoed).toBe('hello\n');
    expect(await service.stop()).toEqual({ code: 0, signal: null });
  });

  it('SIGKILLs a group that ignores stdin EOF and SIGTERM, grandchildren included', async () => {
    const script =
      "trap '' TERM; sh -c 'trap \"\" TERM; echo $$; while :; do sleep 1; done' & while :; do sleep 1; done";
    const service = await startService('sh', ['-c', script]);
    const grandchild = await new Promise<number>((resolve) =>
      service.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim()))),
    );
    expect(alive(grandchild)).toBe(true);
    const status = await service.stop({ stdinGraceMs: 50, termGraceMs: 50 });
    expect(status.signal).toBe('SIGKILL');
    expect(alive(grandchild)).toBe(false);
    expect(service.stop()).toBeInstanceOf(Promise);
  });

  it('kills what a leader left behind when it exited on its own', async () => {
    const service = await startService('sh', ['-c', "sh -c 'echo $$; exec sleep 100' & read line"]);
    const leftover = await new Promise<number>((resolve) =>
      service.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim()))),
    );
    service.stdin.write('go\n');
    await service.exited;
    expect(alive(leftover)).toBe(true);
    await service.stop({ stdinGraceMs: 50, termGraceMs: 50 });
    expect(alive(leftover)).toBe(false);
  });
});
