/**
 * The seccomp filter of every confined command: a classic BPF program,
 * generated here, that bubblewrap installs (`--seccomp FD`) right before it
 * runs the command. Whatever the network setting, the kernel keyring calls
 * (`keyctl`, `add_key`, `request_key`) fail with EPERM: keyrings are not
 * namespaced by bubblewrap, so without this a confined command reads the
 * keys of the session keyring it inherits (Kerberos tickets, `keyctl padd`
 * secrets) and plants its own there for the host to use. With the network
 * off, unix sockets are refused too: `--unshare-net` already cuts IP and
 * abstract unix sockets off; pathname unix sockets (a Docker socket, an
 * ssh-agent, D-Bus, any listener in a folder the command can see) are files,
 * and a network namespace does not stop them. So the filter makes
 * `socket(AF_UNIX, ...)` fail with EPERM: no unix socket can be made, so none
 * can connect. `socketpair()` (pipes between processes: Node, Python, make
 * jobs) and inherited descriptors keep working. io_uring is refused too (its
 * `IORING_OP_SOCKET` and `IORING_OP_CONNECT` would make and connect a socket
 * without the `socket` system call). The program checks the architecture
 * first: anything but the native x86_64 or aarch64 ABI (32-bit `socketcall`,
 * x32) kills the process, so no other system call table can go around it.
 */

import os from 'node:os';

/** The descriptor bubblewrap reads the filter from, in the spawned bwrap process (after a spare's 3 and 4). */
export const SECCOMP_FD = 5;

// Classic BPF (linux/filter.h, linux/bpf_common.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
// struct seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low 32 bits on a little-endian CPU).
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;
// linux/seccomp.h
const KILL_PROCESS = 0x80000000;
const ERRNO = 0x00050000;
const ALLOW = 0x7fff0000;
const EPERM = 1;
const AF_UNIX = 1;
// linux/audit.h
const AUDIT_ARCH_X86_64 = 0xc000003e;
const AUDIT_ARCH_AARCH64 = 0xc00000b7;
/** x32 system calls come with the x86_64 architecture and this bit set in their number. */
const X32_BIT = 0x40000000;

/** The native system call numbers the filter refuses, per architecture. */
const SYSCALLS = {
  x64: { arch: AUDIT_ARCH_X86_64, socket: 41, ioUring: [425, 426, 427], keyring: [248, 249, 250] },
  arm64: { arch: AUDIT_ARCH_AARCH64, socket: 198, ioUring: [425, 426, 427], keyring: [217, 218, 219] },
} as const;

/** The CPU architectures (`process.arch`) the filter knows. */
export const SECCOMP_ARCHES: readonly string[] = Object.keys(SYSCALLS);

type Step = { label: string } | { op: number; k: number; jt?: string; jf?: string };

/** What the filter refuses besides the keyring calls. */
export interface FilterOptions {
  /** Refuse `socket(AF_UNIX)` and io_uring (default true: the network is off). */
  unixSockets?: boolean;
}

/**
 * The filter's program (an array of `struct sock_filter`, little-endian),
 * as bubblewrap reads it; undefined on a CPU architecture it does not know.
 * The keyring calls are always refused; unix sockets and io_uring unless
 * `options.unixSockets` is false (a command with the network on).
 */
export function unixSocketFilter(
  arch: string = process.arch,
  options: FilterOptions = {},
): Buffer | undefined {
  // Little-endian only: big-endian aarch64 reports another architecture, and args[0]'s low half moves.
  if (!Object.hasOwn(SYSCALLS, arch) || os.endianness() !== 'LE') return undefined;
  const native = SYSCALLS[arch as keyof typeof SYSCALLS];
  const steps: Step[] = [
    { op: LD_W_ABS, k: ARCH },
    { op: JEQ_K, k: native.arch, jf: 'kill' },
    { op: LD_W_ABS, k: NR },
  ];
  if (arch === 'x64') steps.push({ op: JGE_K, k: X32_BIT, jt: 'kill' });
  for (const nr of native.keyring) steps.push({ op: JEQ_K, k: nr, jt: 'eperm' });
  if (options.unixSockets !== false) {
    steps.push({ op: JEQ_K, k: native.socket, jt: 'socket' });
    for (const nr of native.ioUring) steps.push({ op: JEQ_K, k: nr, jt: 'eperm' });
  }
  steps.push(
    { op: RET_K, k: ALLOW },
    { label: 'socket' },
    { op: LD_W_ABS, k: ARG0_LOW },
    { op: JEQ_K, k: AF_UNIX, jt: 'eperm' },
    { op: RET_K, k: ALLOW },
    { label: 'eperm' },
    { op: RET_K, k: ERRNO | EPERM },
    { label: 'kill' },
    { op: RET_K, k: KILL_PROCESS },
  );
  return assemble(steps);
}

/** Resolve the labels into relative jumps and encode each instruction (8 bytes). */
function assemble(steps: readonly Step[]): Buffer {
  const labels = new Map<string, number>();
  const code: { op: number; k: number; jt?: string; jf?: string }[] = [];
  for (const step of steps) {
    if ('label' in step) labels.set(step.label, code.length);
    else code.push(step);
  }
  const out = Buffer.alloc(code.length * 8);
  code.forEach((insn, i) => {
    const jump = (label: string | undefined): number => {
      if (label === undefined) return 0;
      const offset = labels.get(label)! - (i + 1);
      if (offset < 0 || offset > 255) throw new Error(`seccomp filter: jump to ${label} out of range`);
      return offset;
    };
    const at = i * 8;
    out.writeUInt16LE(insn.op, at);
    out.writeUInt32LE(insn.k >>> 0, at + 4);
    out.writeUInt8(jump(insn.jt), at + 2);
    out.writeUInt8(jump(insn.jf), at + 3);
  });
  return out;
}
