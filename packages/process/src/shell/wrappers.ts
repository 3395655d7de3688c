/**
 * Programs that run another command or a script: wrappers (`env`, `sudo`,
 * `xargs`, `timeout`...) with the options that take a value, and shells with
 * their `-c` / stdin forms.
 */
import type { ShellWord } from './types.js';

/** A `NAME=value` word (`env A=1 cmd`). */
export const ASSIGNMENT: RegExp = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

export interface WrapperSpec {
  /** Options whose value is the next word (or attached: `-uroot`, `--user=root`). */
  value?: readonly string[];
  /** Positional words before the command (`timeout 5 cmd`, `chroot /root cmd`). */
  positionals?: number;
  /** Skip `NAME=value` words (`env`). */
  assignments?: boolean;
  /** Options whose value is a script run by a shell (`su -c`, `env -S`, `flock -c`). */
  script?: readonly string[];
  /** Options after which nothing runs (`command -v`). */
  noRun?: readonly string[];
  /** The operands are joined and run by `sh -c` (`watch`). */
  joins?: boolean;
  /** The operands are not a command (`su user args`). */
  noCommand?: boolean;
}

// biome-ignore format: a table
export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: { value: ['-u', '--unset', '-C', '--chdir'], assignments: true, script: ['-S', '--split-string'] },
  command: { noRun: ['-v', '-V'] },
  builtin: {},
  exec: { value: ['-a'] },
  nohup: {},
  setsid: {},
  time: { value: ['-f', '--format', '-o', '--output'] },
  nice: { value: ['-n', '--adjustment'] },
  ionice: { value: ['-c', '--class', '-n', '--classdata'] },
  timeout: { value: ['-s', '--signal', '-k', '--kill-after'], positionals: 1 },
  stdbuf: { value: ['-i', '--input', '-o', '--output', '-e', '--error'] },
  chroot: { value: ['--userspec', '--groups'], positionals: 1 },
  xargs: { value: ['-I', '-L', '-n', '-P', '-s', '-d', '-E', '-a', '--max-args', '--max-procs', '--delimiter', '--arg-file', '--max-lines', '--max-chars', '--eof'] },
  sudo: { value: ['-u', '--user', '-g', '--group', '-h', '--host', '-p', '--prompt', '-C', '--close-from', '-D', '--chdir', '-r', '--role', '-t', '--type', '-U', '--other-user', '-T', '--command-timeout'] },
  doas: { value: ['-u', '-C'] },
  flock: { value: ['-w', '--timeout', '-E', '--conflict-exit-code'], positionals: 1, script: ['-c', '--command'] },
  unbuffer: {},
  strace: { value: ['-o', '-e', '-p', '-s', '-u', '-E', '-a', '-b', '-I', '-O', '-S', '-X', '-P'] },
  watch: { value: ['-n', '--interval'], joins: true },
  su: { value: ['-s', '--shell', '-g', '--group', '-G', '--supp-group', '-w'], script: ['-c', '--command'], noCommand: true },
  runuser: { value: ['-u', '--user', '-g', '--group', '-G', '--supp-group', '-s', '--shell', '-w'], script: ['-c', '--command'] },
  pkexec: { value: ['--user'] },
  busybox: {},
  toybox: {},
  taskset: { positionals: 1, noRun: ['-p', '--pid'] },
  chrt: { positionals: 1, noRun: ['-p', '--pid'] },
  unshare: { value: ['-S', '--setuid', '-G', '--setgid', '-R', '--root', '-w', '--wd'] },
  nsenter: { value: ['-t', '--target', '-S', '--setuid', '-G', '--setgid'] },
  'systemd-run': { value: ['-p', '--property', '-u', '--unit', '-E', '--setenv', '--uid', '--gid', '--nice', '--slice', '--description', '-M', '--machine', '--working-directory', '-H', '--host'] },
  proxychains: { value: ['-f'] },
  proxychains4: { value: ['-f'] },
  torsocks: { value: ['-u', '--user', '-p', '--pass', '-a', '--address', '-P', '--port'] },
};

export const SHELLS: ReadonlySet<string> = new Set([
  'bash',
  'sh',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'yash',
  'rbash',
]);

/** The command a wrapper runs (`inner`) and the script it hands to a shell, if any. */
export function unwrap(
  argv: readonly ShellWord[],
  spec: WrapperSpec,
): { inner: ShellWord[]; script?: string } {
  let k = 1;
  let script: string | undefined;
  let positionals = spec.positionals ?? 0;
  const takesValue = (opt: string, list: readonly string[] | undefined): boolean =>
    list?.includes(opt) ?? false;
  while (k < argv.length) {
    const word = argv[k]!.value;
    if (word === '--') {
      k++;
      break;
    }
    if (word.startsWith('-') && word.length > 1) {
      const [opt, attached] = splitOption(word);
      if (takesValue(opt, spec.noRun)) return { inner: [] };
      const isScript = takesValue(opt, spec.script);
      if (isScript || takesValue(opt, spec.value)) {
        const value = attached ?? argv[k + 1]?.value;
        if (attached === undefined) k++;
        if (isScript && value !== undefined) script = value;
      }
      k++;
      continue;
    }
    if (spec.assignments && ASSIGNMENT.test(word)) {
      k++;
      continue;
    }
    if (spec.noCommand) {
      // su: a user name, then arguments for the shell; `-c` may come after the user.
      for (let j = k; j < argv.length; j++) {
        const [opt, attached] = splitOption(argv[j]!.value);
        if (takesValue(opt, spec.script)) script = attached ?? argv[j + 1]?.value ?? script;
      }
      return { inner: [], script };
    }
    if (positionals > 0) {
      positionals--;
      k++;
      continue;
    }
    break;
  }
  const rest = argv.slice(k);
  if (spec.joins) return { inner: [], script: rest.map((w) => w.value).join(' ') };
  if (spec.noCommand) return { inner: [], script };
  return { inner: rest, script };
}

/** `--user=root` -> [`--user`, `root`]; `-uroot` -> [`-u`, `root`]; `-u` -> [`-u`, undefined]. */
function splitOption(word: string): [string, string | undefined] {
  if (word.startsWith('--')) {
    const eq = word.indexOf('=');
    return eq < 0 ? [word, undefined] : [word.slice(0, eq), word.slice(eq + 1)];
  }
  return word.length > 2 ? [word.slice(0, 2), word.slice(2)] : [word, undefined];
}

/** Paths that name the process's own standard input. */
export const STDIN_PATHS: ReadonlySet<string> = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);

/**
 * What a shell invocation runs: a `-c` script, a script `file` (the first
 * operand), or standard input (no operand, `-s`, `-`, or `/dev/stdin`).
 */
export function shellScript(argv: readonly ShellWord[]): {
  script?: string;
  file?: ShellWord;
  readsStdin: boolean;
} {
  let k = 1;
  let command = false;
  let stdin = false;
  while (k < argv.length) {
    const word = argv[k]!.value;
    if (word === '--' || word === '-') {
      k++;
      break;
    }
    if (/^[-+]o$|^[-+]O$|^--(rcfile|init-file)$/.test(word)) {
      k += 2;
      continue;
    }
    if (word.startsWith('--')) {
      k++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(word)) {
      if (word.startsWith('-') && word.includes('c')) command = true;
      if (word.startsWith('-') && word.includes('s')) stdin = true;
      k++;
      continue;
    }
    break;
  }
  if (command) return { script: argv[k]?.value ?? '', readsStdin: false };
  const file = argv[k];
  if (file === undefined || stdin) return { readsStdin: true };
  if (!file.dynamic && STDIN_PATHS.has(file.value)) return { readsStdin: true };
  return { file, readsStdin: false };
}
