import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandboxGate } from '@amplifier/test-fixtures';
import { describe, expect, it } from 'vitest';
import { Sandbox, sandboxSupport } from './sandbox.js';
import { SANDBOX_DEFAULTS } from './sandbox-policy.js';
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

const gate = sandboxGate(sandboxSupport());

describe.skipIf(!gate.run)(gate.title('startService in the sandbox'), () => {
  it('runs confined, and leaves no spare sandbox behind it (a server runs for the session)', async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'service-'));
    const sandbox = new Sandbox({ ...SANDBOX_DEFAULTS, mode: 'required' }, { module: 'test' });
    try {
      const service = await startService('sh', ['-c', 'echo $$; cat'], {
        cwd: workspace,
        sandbox: { sandbox, workspace },
      });
      // PID 2 in the sandbox's own PID namespace (bubblewrap is 1).
      const pid = await new Promise<string>((resolve) =>
        service.stdout.once('data', (chunk) => resolve(String(chunk))),
      );
      expect(pid.trim()).toBe('2');
      expect(await sandbox.spareReady()).toBe(false);
      expect((await service.stop()).code).toBe(0);
    } finally {
      sandbox.cleanup();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
