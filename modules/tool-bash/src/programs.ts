/**
 * What the programs the safety profiles care about do with their arguments,
 * read through `parseOptions` (flags as getopt reads them): which paths `rm`,
 * `find`, `mv`, `rsync`, `chmod`, `chown`... change and whether recursively,
 * which devices `dd`, `tee`, `cp`, `shred` write, which programs fetch from
 * the network, and where an interpreter reads its program from.
 */
import {
  type ParsedOptions,
  parseOptions,
  programName,
  type ShellCommand,
  type ShellWord,
  STDIN_PATHS,
  shellScript,
  splitShellCommands,
} from '@amplifier/process/shell';

/** What a command does to paths: remove them, change their permissions, or their owner. */
export type PathChange = 'delete' | 'chmod' | 'chown';

export interface PathEffect {
  change: PathChange;
  /** The program, for messages (`rm`, `find -delete`). */
  program: string;
  /** `true` when recursive; `'maybe'` when a word that depends on run time could make it so. */
  recursive: boolean | 'maybe';
  targets: ShellWord[];
  /** Words that depend on run time and could be options. */
  unknownOptions: ShellWord[];
}

const RM_LONG = [
  'recursive',
  'force',
  'dir',
  'interactive',
  'verbose',
  'preserve-root',
  'no-preserve-root',
  'one-file-system',
  'help',
  'version',
];
const CHMOD_LONG = [
  'recursive',
  'reference=',
  'changes',
  'silent',
  'quiet',
  'verbose',
  'preserve-root',
  'no-preserve-root',
  'dereference',
  'no-dereference',
  'help',
  'version',
];
const CHOWN_LONG = [...CHMOD_LONG, 'from='];
const MODE_LETTERS = /[rwxXstugoa]/;

function recursion(parsed: ParsedOptions, letters: string): boolean | 'maybe' {
  if ([...letters].some((l) => parsed.short.has(l)) || parsed.long.has('recursive')) return true;
  return parsed.unknown.length > 0 ? 'maybe' : false;
}

/** The path effect of a simple command (`rm -rf /`), when it has one. */
export function pathEffect(command: ShellCommand): PathEffect | undefined {
  const [head, ...args] = command.argv;
  if (head === undefined) return undefined;
  const name = programName(head.value);
  switch (name) {
    case 'rm': {
      const parsed = parseOptions(args, { long: RM_LONG });
      return effect('delete', name, recursion(parsed, 'rR'), parsed.operands, parsed);
    }
    case 'chmod': {
      const parsed = parseOptions(args, { long: CHMOD_LONG });
      // `chmod -x f` gives the mode as an option word; otherwise the first operand is the mode.
      const dashMode = [...parsed.short].some((l) => MODE_LETTERS.test(l));
      const skip = parsed.long.has('reference') || dashMode ? 0 : 1;
      return effect('chmod', name, recursion(parsed, 'R'), parsed.operands.slice(skip), parsed);
    }
    case 'chown':
    case 'chgrp': {
      const parsed = parseOptions(args, { long: CHOWN_LONG });
      const skip = parsed.long.has('reference') ? 0 : 1;
      return effect('chown', name, recursion(parsed, 'R'), parsed.operands.slice(skip), parsed);
    }
    case 'setfacl': {
      const parsed = parseOptions(args, {
        shortWithValue: 'mMxX',
        long: [
          'recursive',
          'modify=',
          'modify-file=',
          'remove=',
          'remove-file=',
          'set=',
          'set-file=',
          'remove-all',
          'remove-default',
        ],
      });
      return effect('chmod', name, recursion(parsed, 'R'), parsed.operands, parsed);
    }
    case 'chattr': {
      const parsed = parseOptions(args, { shortWithValue: 'vp' });
      const targets = parsed.operands.filter((w) => !/^[+=]/.test(w.value));
      return effect('chmod', name, recursion(parsed, 'R'), targets, parsed);
    }
    case 'mv': {
      const parsed = parseOptions(args, {
        shortWithValue: 'tS',
        long: ['target-directory=', 'suffix=', 'backup'],
      });
      const targetDir = parsed.values.some((v) => v.option === '-t' || v.option === '--target-directory');
      const sources = targetDir ? parsed.operands : parsed.operands.slice(0, -1);
      return effect('delete', name, true, sources, parsed);
    }
    case 'rsync': {
      const parsed = parseOptions(args, { shortWithValue: 'efBTM' });
      const deletes = [...parsed.long].some((l) => /^(del|delete(-[a-z]+)?)$/.test(l));
      if (!deletes) return undefined;
      return effect('delete', 'rsync --delete', true, parsed.operands.slice(-1), parsed);
    }
    case 'find':
      return findEffect(args);
    default:
      return undefined;
  }
}

function effect(
  change: PathChange,
  program: string,
  recursive: boolean | 'maybe',
  targets: ShellWord[],
  parsed: ParsedOptions,
): PathEffect {
  return { change, program, recursive, targets, unknownOptions: parsed.unknown };
}

const FIND_DELETERS: Readonly<Record<string, PathChange>> = {
  rm: 'delete',
  unlink: 'delete',
  rmdir: 'delete',
  shred: 'delete',
  mv: 'delete',
  chmod: 'chmod',
  setfacl: 'chmod',
  chattr: 'chmod',
  chown: 'chown',
  chgrp: 'chown',
};

/**
 * `find START... -delete`, or `-exec`/`-execdir`/`-ok`/`-okdir` running a
 * program that removes or changes files (directly, or in a `sh -c` script):
 * a recursive change of the start points, whatever the tests in between.
 */
function findEffect(args: readonly ShellWord[]): PathEffect | undefined {
  let k = 0;
  while (k < args.length && /^-(H|L|P|O\d*|D)$/.test(args[k]!.value)) k += args[k]!.value === '-D' ? 2 : 1;
  const starts: ShellWord[] = [];
  for (; k < args.length; k++) {
    const value = args[k]!.value;
    if (value.startsWith('-') || value === '(' || value === '!' || value === ')' || value === ',') break;
    starts.push(args[k]!);
  }
  const start = starts.length > 0 ? starts : [{ value: '.', dynamic: false, quoted: false }];
  let change: PathChange | undefined;
  let program = '';
  for (; k < args.length; k++) {
    const value = args[k]!.value;
    if (value === '-delete') {
      change = 'delete';
      program = 'find -delete';
    } else if (/^-(exec|execdir|ok|okdir)$/.test(value)) {
      const runs = findExecChange(args.slice(k + 1));
      if (runs !== undefined && (change === undefined || runs.change === 'delete')) {
        change = runs.change;
        program = `find ${value} ${runs.program}`;
      }
    }
  }
  if (change === undefined) return undefined;
  return { change, program, recursive: true, targets: start, unknownOptions: [] };
}

function findExecChange(words: readonly ShellWord[]): { change: PathChange; program: string } | undefined {
  const head = words[0];
  if (head === undefined) return undefined;
  const name = programName(head.value);
  if (Object.hasOwn(FIND_DELETERS, name)) return { change: FIND_DELETERS[name]!, program: name };
  const shell = shellScript(words);
  if (shell.script === undefined) return undefined;
  for (const inner of splitShellCommands(shell.script)) {
    const innerName = programName(inner.argv[0]?.value ?? '');
    if (Object.hasOwn(FIND_DELETERS, innerName)) {
      return { change: FIND_DELETERS[innerName]!, program: `${name} -c '${innerName} ...'` };
    }
  }
  return undefined;
}

// ---------------------------------------------------------------- devices

/** Paths under /dev/ that are not disks or memory. */
const HARMLESS_DEVICES =
  /^\/dev\/(null|zero|full|random|urandom|stdin|stdout|stderr|tty|console|ptmx|(fd|pts|shm|mqueue|tcp|udp)\/.*)$/;

/** A disk, partition or memory device (`/dev/sda`, `/dev/nvme0n1p1`, `/dev/mapper/x`, `/dev/mem`). */
export function isDevice(path: string): boolean {
  return path.startsWith('/dev/') && !HARMLESS_DEVICES.test(path);
}

/** Programs that wipe whatever device they are given. */
const DISK_WIPERS: ReadonlySet<string> = new Set([
  'wipefs',
  'blkdiscard',
  'mke2fs',
  'mkswap',
  'mkdosfs',
  'mkntfs',
  'mkexfatfs',
  'sgdisk',
  'sfdisk',
]);

/** The words naming files a command writes in place: `dd of=`, `tee`, `shred`, `cp`'s destination, disk tools. */
export function writtenFiles(command: ShellCommand): { program: string; targets: ShellWord[] } | undefined {
  const [head, ...args] = command.argv;
  if (head === undefined) return undefined;
  const name = programName(head.value);
  if (name === 'dd') {
    const targets = args
      .filter((w) => w.value.startsWith('of='))
      .map((w) => ({ ...w, value: w.value.slice(3) }));
    return { program: 'dd', targets };
  }
  if (name === 'tee') return { program: name, targets: parseOptions(args).operands };
  if (name === 'shred')
    return { program: name, targets: parseOptions(args, { shortWithValue: 'ns' }).operands };
  if (name === 'cp' || name === 'install') {
    return { program: name, targets: parseOptions(args, { shortWithValue: 'tSmgo' }).operands.slice(-1) };
  }
  if (DISK_WIPERS.has(name)) return { program: name, targets: parseOptions(args).operands };
  if (name === 'truncate')
    return { program: name, targets: parseOptions(args, { shortWithValue: 'sr' }).operands };
  return undefined;
}

// ---------------------------------------------------------------- network

/** Programs that print (or save) what they fetch from the network. */
// biome-ignore format: a list
const DOWNLOADERS: ReadonlySet<string> = new Set(['curl', 'wget', 'wget2', 'fetch', 'http', 'https', 'xh', 'xhs', 'curlie', 'lwp-request', 'GET', 'lynx', 'w3m', 'aria2c', 'nc', 'ncat', 'netcat', 'socat', 'openssl', 'ftp', 'tftp', 'ssh']);

/** Whether a program of this name fetches from the network (`curl`, `/usr/bin/wget`). */
export function isDownloaderName(name: string): boolean {
  return DOWNLOADERS.has(programName(name));
}

/** Interpreter code that fetches from the network (`urllib`, `requests.get`, `fetch(`, `LWP::`, `Invoke-WebRequest`...). */
export const NETWORK_API: RegExp =
  /\b(urlopen|urllib|requests\.(get|post)|httpx|http\.client|https?\.get|fetch\s*\(|axios|LWP::|Net::HTTP|HTTP::Tiny|open-uri|URI\.open|file_get_contents\s*\(\s*['"](https?|ftp):|curl_exec|Invoke-WebRequest|Invoke-RestMethod|iwr|irm|DownloadString|WebClient|socket\.connect)/;

/** Interpreter code that runs code it holds as data (`exec(`, `eval(`, `new Function`, `Invoke-Expression`). */
export const EVAL_API: RegExp =
  /\b(exec|eval|compile|execfile|Function|runInThisContext|runInNewContext|instance_eval|Invoke-Expression|iex)\b\s*[(\s]/;

/** Interpreter code that deletes a tree given as a literal: `shutil.rmtree('/')`, `fs.rmSync('/', …)`, `FileUtils.rm_rf`. */
export const TREE_DELETE_API: RegExp =
  /\b(rmtree|rm_rf|rm_r|remove_tree|rmSync|rimraf(?:Sync)?|removedirs|remove_dir_all|Remove-Item)\s*\(?\s*(['"`])([^'"`]*)\2/g;

/**
 * Whether `command` fetches from the network: a downloader (also behind a
 * wrapper: `sudo curl`, `busybox wget`), or a read of `/dev/tcp/...`.
 */
export function isDownloader(command: ShellCommand): boolean {
  for (let c: ShellCommand | undefined = command, n = 0; c !== undefined && n < 16; c = c.inner, n++) {
    const head = c.argv[0];
    if (head !== undefined && !head.dynamic && DOWNLOADERS.has(programName(head.value))) return true;
    const source = programSource(c, new Set());
    if (source?.code.some((w) => !w.dynamic && NETWORK_API.test(w.value))) return true;
  }
  return command.redirects.some((r) => r.op.includes('<') && /^\/dev\/(tcp|udp)\//.test(r.target.value));
}

/** Files a downloader saves what it fetched to (`curl -o f`, `curl -O url`, `wget url`, `wget -O f`). */
export function downloadedFiles(command: ShellCommand): string[] {
  const [head, ...args] = command.argv;
  if (head === undefined) return [];
  const name = programName(head.value);
  const out: string[] = [];
  for (const r of command.redirects) if (/^(\d*>|&>|>>|&>>|\d*>>|>\|)$/.test(r.op)) out.push(r.target.value);
  const urlName = (url: string): string =>
    url
      .replace(/[?#].*$/, '')
      .replace(/\/+$/, '')
      .split('/')
      .pop() || 'index.html';
  if (name === 'curl') {
    const parsed = parseOptions(args, {
      shortWithValue: 'AbcCdDeEFHKmoPQrtTuUwxXyYz',
      long: ['output=', 'remote-name', 'output-dir='],
    });
    for (const v of parsed.values)
      if ((v.option === '-o' || v.option === '--output') && v.value) out.push(v.value.value);
    if (parsed.short.has('O') || parsed.long.has('remote-name')) {
      for (const url of parsed.operands) out.push(urlName(url.value));
    }
  } else if (name === 'wget' || name === 'wget2') {
    const parsed = parseOptions(args, {
      shortWithValue: 'OoaPUetTwYQlARDIXiB',
      long: ['output-document=', 'directory-prefix='],
    });
    const document = parsed.values.find((v) => v.option === '-O' || v.option === '--output-document');
    if (document?.value !== undefined) {
      if (document.value.value !== '-') out.push(document.value.value);
    } else for (const url of parsed.operands) out.push(urlName(url.value));
  }
  return out;
}

// ------------------------------------------------------------ interpreters

/** Where an interpreter reads its program: words (code or a script file) and/or standard input. */
export interface ProgramSource {
  interpreter: string;
  /** Words holding program text (`-c CODE`, `-e CODE`, `eval ARGS`). */
  code: ShellWord[];
  /** Words naming a script file (`python3 x.py`, `bash <(...)`, `source f`). */
  files: ShellWord[];
  /** The program comes from standard input. */
  stdin: boolean;
}

interface InterpreterSpec {
  /** Short options whose value is program text (`c` for `python -c`). */
  code: string;
  /** Long options whose value is program text. */
  codeLong?: readonly string[];
  /** Short options that take a value (rest of the word or the next word). */
  value?: string;
  /** Short options whose value can only be attached (`perl -Idir`). */
  attached?: string;
  /** Long options that take the next word as value. */
  valueLong?: readonly string[];
  /** Short options after which a module, not a file or stdin, is run (`python -m`). */
  module?: string;
  /** Short options whose value is a script file (`php -f f`, `awk -f f`). */
  file?: string;
  /** The first operand is program text unless a file option was given (awk). */
  firstOperandIsCode?: boolean;
  /** Leading operands that are subcommands (`deno run`, `bun run`). */
  subcommands?: readonly string[];
}

const NODE: InterpreterSpec = {
  code: 'ep',
  codeLong: ['--eval', '--print'],
  value: 'rC',
  valueLong: [
    '--require',
    '--import',
    '--loader',
    '--experimental-loader',
    '--input-type',
    '--conditions',
    '--env-file',
    '--title',
  ],
  subcommands: ['run', 'x'],
};

// biome-ignore format: a table
const INTERPRETERS: Readonly<Record<string, InterpreterSpec>> = {
  python: { code: 'c', value: 'WXQ', module: 'm' },
  perl: { code: 'eE', attached: 'IMmlC0Dxi' },
  ruby: { code: 'e', value: 'rICEF' },
  node: NODE,
  nodejs: NODE,
  bun: NODE,
  deno: { code: '', subcommands: ['run'], codeLong: ['eval'] },
  php: { code: 'r', value: 'cdzt', file: 'f' },
  lua: { code: 'e', value: 'l' },
  luajit: { code: 'e', value: 'l' },
  Rscript: { code: 'e' },
  R: { code: 'e', file: 'f' },
  awk: { code: 'e', value: 'vFil', file: 'fE', firstOperandIsCode: true },
  osascript: { code: 'e' },
  pwsh: { code: 'c', file: 'f', codeLong: ['-command', '-Command', '-encodedcommand', '-EncodedCommand'] },
  tclsh: { code: '' },
  wish: { code: '' },
  expect: { code: 'c' },
  julia: { code: 'eE', value: 'LJ' },
  groovy: { code: 'e' },
  jshell: { code: '' },
};

const FAMILIES: [RegExp, string][] = [
  [/^(python|pypy)[0-9.]*$/, 'python'],
  [/^perl[0-9.]*$/, 'perl'],
  [/^ruby[0-9.]*$/, 'ruby'],
  [/^php[0-9.]*$/, 'php'],
  [/^lua[0-9.]*$/, 'lua'],
  [/^(g|m|n|busybox-)?awk$/, 'awk'],
  [/^(pwsh|powershell)(\.exe)?$/, 'pwsh'],
];

/** Where `command` reads the program it runs, when it is an interpreter (a shell, python, node, `eval`...). */
export function programSource(command: ShellCommand, shells: ReadonlySet<string>): ProgramSource | undefined {
  const [head, ...args] = command.argv;
  if (head === undefined || head.dynamic) return undefined;
  const name = programName(head.value);
  if (shells.has(name) || name === 'fish' || name === 'csh' || name === 'tcsh') {
    const shell = shellScript(command.argv);
    const code = shell.script === undefined ? [] : args.filter((w) => w.value === shell.script).slice(0, 1);
    return { interpreter: name, code, files: shell.file ? [shell.file] : [], stdin: shell.readsStdin };
  }
  if (name === 'eval') return { interpreter: name, code: args, files: [], stdin: false };
  if (name === 'source' || name === '.') {
    const file = args[0];
    const stdin = file !== undefined && !file.dynamic && STDIN_PATHS.has(file.value);
    return { interpreter: name, code: [], files: file && !stdin ? [file] : [], stdin };
  }
  const family = FAMILIES.find(([re]) => re.test(name))?.[1] ?? name;
  if (!Object.hasOwn(INTERPRETERS, family)) return undefined;
  return interpreterSource(name, INTERPRETERS[family]!, args);
}

function interpreterSource(
  interpreter: string,
  spec: InterpreterSpec,
  args: readonly ShellWord[],
): ProgramSource {
  const source: ProgramSource = { interpreter, code: [], files: [], stdin: false };
  let k = 0;
  let fileGiven = false;
  const operands: ShellWord[] = [];
  for (; k < args.length; k++) {
    const word = args[k]!;
    const text = word.value;
    if (text === '-') {
      source.stdin = true;
      return source;
    }
    if (text === '--') {
      k++;
      break;
    }
    if (spec.codeLong?.includes(text.split('=')[0]!)) {
      const value = text.includes('=') ? { ...word, value: text.slice(text.indexOf('=') + 1) } : args[++k];
      if (value !== undefined) source.code.push(value);
      return source;
    }
    if (text.startsWith('--')) {
      if (spec.valueLong?.includes(text) && !text.includes('=')) k++;
      continue;
    }
    if (text.startsWith('-') && text.length > 1 && !word.dynamic) {
      for (let i = 1; i < text.length; i++) {
        const letter = text[i]!;
        const rest = text.slice(i + 1);
        const take = (): ShellWord | undefined => (rest !== '' ? { ...word, value: rest } : args[++k]);
        if (spec.code.includes(letter)) {
          const value = take();
          if (value !== undefined) source.code.push(value);
          if (!spec.firstOperandIsCode) return source;
          fileGiven = true;
          break;
        }
        if (spec.module?.includes(letter)) return source;
        if (spec.file?.includes(letter)) {
          const value = take();
          if (
            value !== undefined &&
            !value.dynamic &&
            (value.value === '-' || STDIN_PATHS.has(value.value))
          ) {
            source.stdin = true;
          } else if (value !== undefined) source.files.push(value);
          fileGiven = true;
          break;
        }
        if (spec.value?.includes(letter)) {
          take();
          break;
        }
        if (spec.attached?.includes(letter)) break;
      }
      continue;
    }
    if (spec.subcommands?.includes(text) && operands.length === 0) continue;
    operands.push(word);
    break;
  }
  if (k < args.length && operands.length === 0) operands.push(args[k]!);
  if (spec.firstOperandIsCode) {
    if (!fileGiven && operands[0] !== undefined) source.code.push(operands[0]);
    return source;
  }
  if (fileGiven) return source;
  const file = operands[0];
  if (file === undefined || (!file.dynamic && STDIN_PATHS.has(file.value))) source.stdin = true;
  else source.files.push(file);
  return source;
}
