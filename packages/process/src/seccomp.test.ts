import { describe, expect, it } from 'vitest';
import { SECCOMP_ARCHES, unixSocketFilter } from './seccomp.js';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const KILL = 0x80000000;
const X86_64 = 0xc000003e;
const AARCH64 = 0xc00000b7;
const I386 = 0x40000003;
const ARM = 0x40000028;

/**
 * A classic BPF interpreter for the instructions a seccomp filter may use
 * (loads of `seccomp_data`, jumps, returns): what the kernel would answer for
 * one system call. Anything else throws, so a program using more is noticed.
 */
function evaluate(
  program: Buffer,
  call: { arch: number; nr: number; arg0?: number; arg0High?: number },
): number {
  const data = Buffer.alloc(64);
  data.writeUInt32LE(call.nr >>> 0, 0);
  data.writeUInt32LE(call.arch >>> 0, 4);
  data.writeUInt32LE((call.arg0 ?? 0) >>> 0, 16);
  data.writeUInt32LE((call.arg0High ?? 0) >>> 0, 20);
  let a = 0;
  for (let pc = 0; pc < program.length / 8; ) {
    const op = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    pc++;
    if (op === 0x20) a = data.readUInt32LE(k);
    else if (op === 0x15) pc += a === k ? jt : jf;
    else if (op === 0x35) pc += a >= k ? jt : jf;
    else if (op === 0x06) return k;
    else throw new Error(`unexpected BPF op ${op.toString(16)}`);
  }
  throw new Error('the program fell off its end');
}

describe('the seccomp filter (no unix sockets with the network off)', () => {
  const x64 = unixSocketFilter('x64')!;
  const arm64 = unixSocketFilter('arm64')!;

  it('refuses socket(AF_UNIX, ...) with EPERM, on x86_64 and aarch64, whatever the upper bits of the family', () => {
    expect(evaluate(x64, { arch: X86_64, nr: 41, arg0: 1 })).toBe(EPERM);
    expect(evaluate(x64, { arch: X86_64, nr: 41, arg0: 1, arg0High: 0xffffffff })).toBe(EPERM);
    expect(evaluate(arm64, { arch: AARCH64, nr: 198, arg0: 1 })).toBe(EPERM);
  });

  it('allows other families, socketpair, and every other call', () => {
    for (const family of [2, 10, 16, 17]) {
      expect(evaluate(x64, { arch: X86_64, nr: 41, arg0: family })).toBe(ALLOW);
      expect(evaluate(arm64, { arch: AARCH64, nr: 198, arg0: family })).toBe(ALLOW);
    }
    // socketpair(AF_UNIX), connect, read, write, execve
    for (const nr of [53, 42, 0, 1, 59]) expect(evaluate(x64, { arch: X86_64, nr, arg0: 1 })).toBe(ALLOW);
    for (const nr of [199, 203, 63, 64, 221])
      expect(evaluate(arm64, { arch: AARCH64, nr, arg0: 1 })).toBe(ALLOW);
  });

  it('refuses io_uring (which makes and connects sockets without the socket call)', () => {
    for (const nr of [425, 426, 427]) {
      expect(evaluate(x64, { arch: X86_64, nr })).toBe(EPERM);
      expect(evaluate(arm64, { arch: AARCH64, nr })).toBe(EPERM);
    }
  });

  it('refuses the keyring calls (keyctl, add_key, request_key) with the network off and on; network on allows unix sockets', () => {
    const x64On = unixSocketFilter('x64', { unixSockets: false })!;
    const arm64On = unixSocketFilter('arm64', { unixSockets: false })!;
    for (const program of [x64, x64On]) {
      for (const nr of [248, 249, 250]) expect(evaluate(program, { arch: X86_64, nr, arg0: 1 })).toBe(EPERM);
    }
    for (const program of [arm64, arm64On]) {
      for (const nr of [217, 218, 219]) expect(evaluate(program, { arch: AARCH64, nr, arg0: 1 })).toBe(EPERM);
    }
    expect(evaluate(x64On, { arch: X86_64, nr: 41, arg0: 1 })).toBe(ALLOW);
    expect(evaluate(arm64On, { arch: AARCH64, nr: 198, arg0: 1 })).toBe(ALLOW);
    // The other ABIs are still killed with the network on (their keyctl and socketcall).
    expect(evaluate(x64On, { arch: I386, nr: 288 })).toBe(KILL);
    expect(evaluate(x64On, { arch: X86_64, nr: 0x40000000 + 250 })).toBe(KILL);
  });

  it('kills a call of another ABI: 32-bit socketcall (i386, arm), x32, and the other 64-bit table', () => {
    // i386 socketcall(SYS_SOCKET) and socket; arm's socket
    expect(evaluate(x64, { arch: I386, nr: 102, arg0: 1 })).toBe(KILL);
    expect(evaluate(x64, { arch: I386, nr: 359, arg0: 1 })).toBe(KILL);
    expect(evaluate(arm64, { arch: ARM, nr: 281, arg0: 1 })).toBe(KILL);
    // x32's socket is 41 | 0x40000000
    expect(evaluate(x64, { arch: X86_64, nr: 0x40000000 + 41, arg0: 1 })).toBe(KILL);
    expect(evaluate(x64, { arch: X86_64, nr: 0x40000000 + 1 })).toBe(KILL);
    expect(evaluate(x64, { arch: AARCH64, nr: 198, arg0: 1 })).toBe(KILL);
    expect(evaluate(arm64, { arch: X86_64, nr: 41, arg0: 1 })).toBe(KILL);
  });

  it('is made only for the CPUs it knows', () => {
    expect(SECCOMP_ARCHES).toEqual(['x64', 'arm64']);
    for (const arch of ['ia32', 'arm', 'riscv64', 'ppc64', 's390x', 'toString', '__proto__']) {
      expect(unixSocketFilter(arch)).toBeUndefined();
    }
  });
});
