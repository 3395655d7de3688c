/**
 * What a command line would do, decided on effect rather than spelling: the
 * simple commands of `splitShellCommands` (wrappers, `bash -c`, substitutions,
 * pipes followed) are walked in order, their words read as the strings they
 * may be (variables the line sets, `$HOME`, `$(echo ...)`), their flags as
 * getopt reads them, their paths resolved and normalised. Found:
 * - a recursive delete, or a permission or owner change, of `/`, anything
 *   directly in it, a system directory or a home directory (`rm -r -f /`,
 *   `rm -rf -- "$HOME"`, `find / -delete`, `chmod -R 777 /etc`, `mv ~ /tmp`);
 * - a write to a disk or memory device (`dd of=/dev/sda`, `tee /dev/sda`);
 * - code fetched from the network run by an interpreter (`curl … | python3`,
 *   `bash <(curl …)`, `sh -c "$(wget -qO- …)"`, `curl -o x.sh … && sh x.sh`).
 * What cannot be read from the text (a target computed at run time) is
 * listed as `unchecked`.
 */
import {
  printedText,
  programName,
  type ShellCommand,
  type ShellWord,
  splitShellCommands,
} from '@amplifier/process/shell';
import {
  downloadedFiles,
  EVAL_API,
  isDevice,
  isDownloader,
  NETWORK_API,
  type PathEffect,
  pathEffect,
  programSource,
  TREE_DELETE_API,
  writtenFiles,
} from './programs.js';
import { checkRemote, fetches, pathKeys, remoteSource, upstream } from './remote-code.js';
import {
  classifyPath,
  evaluateWord,
  known,
  normalise,
  type PathClass,
  pathCandidates,
  type TextState,
  UNKNOWN,
  untrackedNames,
  type Values,
} from './targets.js';
import {
  type EffectContext,
  type EffectKind,
  type EffectOptions,
  type EffectReport,
  found,
  unchecked,
  type Walk,
} from './walk.js';

export type { EffectContext, EffectKind, EffectOptions, EffectReport, Finding } from './walk.js';

/** Nesting of re-read command lines (`$(echo rm) -rf /`), and how many one validation reads at most. */
const MAX_REREAD = 3;
const MAX_REREADS = 256;

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)$/s;

/**
 * Walk `commands` (from `splitShellCommands`, in order) and report what they
 * would do; with `only`, what those of them would do.
 */
export function commandEffects(
  commands: readonly ShellCommand[],
  context: EffectContext = {},
  { only, text }: EffectOptions = {},
): EffectReport {
  const homes = [...(context.homes ?? [])].map(normalise);
  const walk: Walk = {
    context,
    state: {
      vars: new Map(),
      cwds: context.cwd === undefined ? UNKNOWN : known(normalise(context.cwd)),
      homes,
      ...(context.env === undefined ? {} : { env: context.env }),
      untracked: text === undefined ? 'all' : untrackedNames(text),
      tainted: new Set(),
    },
    report: { findings: [], unchecked: [] },
    downloaded: new Set(),
    links: new Map(),
    only,
    current: undefined,
    rereads: 0,
  };
  visit(commands, walk, 0, undefined);
  return walk.report;
}

function visit(
  commands: readonly ShellCommand[],
  walk: Walk,
  depth: number,
  origin: ShellCommand | undefined,
): void {
  for (const [index, command] of commands.entries()) {
    walk.current = origin ?? command;
    const head = command.argv[0];
    checkRemote(command, index, commands, walk);
    if (head?.dynamic) {
      // A command name computed from the text (`a=rm; $a -rf /`, `$(echo rm) -rf /`): read it again as written out.
      for (const line of rewritten(command, walk.state)) reread(line, walk, depth, command);
      continue;
    }
    const evaluated = { ...command, argv: evaluatedArgv(command.argv, walk.state) };
    if (programName(head?.value ?? '') === 'alias') {
      // An alias body runs where the alias is used (`shopt -s expand_aliases`): read it as commands.
      for (const word of evaluated.argv.slice(1)) {
        const body = /^[^=]+=(.*)$/s.exec(word.value)?.[1];
        if (body !== undefined) reread(body, walk, depth, undefined);
      }
    }
    embeddedCode(evaluated, walk, depth);
    checkPaths(evaluated, walk);
    checkDevices(evaluated, walk);
    checkEnvironRead(evaluated, walk);
    update(evaluated, walk);
  }
}

/** Read `line` as commands run in place of `from` (which hands them its pipe). */
function reread(line: string, walk: Walk, depth: number, from: ShellCommand | undefined): void {
  if (depth >= MAX_REREAD || ++walk.rereads > MAX_REREADS) return;
  const commands = splitShellCommands(line);
  if (from?.piped) {
    for (const c of commands) {
      if (c.piped) continue;
      c.piped = true;
      if (from.input !== undefined) c.input = from.input;
    }
  }
  visit(commands, walk, depth + 1, walk.current);
}

/**
 * Shell commands and tree deletes written as literals in an interpreter's
 * code (`python3 -c "os.system('rm -rf /')"`, `perl -e '`rm -rf /`'`,
 * `node -e "fs.rmSync('/', {recursive: true})"`), and code that downloads
 * code and runs it (`exec(urlopen(…).read())`).
 */
function embeddedCode(command: ShellCommand, walk: Walk, depth: number): void {
  const source = programSource(command, new Set());
  if (source === undefined || source.interpreter === 'eval' || source.interpreter === 'source') return;
  for (const word of source.code) {
    if (word.dynamic) continue;
    const code = word.value;
    if (NETWORK_API.test(code) && EVAL_API.test(code)) {
      found(walk, { effect: 'remote-code', detail: `${source.interpreter} would run code it downloads` });
    }
    for (const m of code.matchAll(TREE_DELETE_API)) {
      const target: ShellWord = { value: m[3]!, dynamic: false, quoted: true };
      judgeTargets(
        {
          change: 'delete',
          program: `${source.interpreter} ${m[1]}`,
          recursive: true,
          targets: [target],
          unknownOptions: [],
        },
        [target],
        true,
        false,
        walk,
      );
    }
    const literals = [...code.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g)].map(
      (m) => m[1] ?? m[2] ?? m[3] ?? '',
    );
    // `["rm", "-rf", "/"]`: the words of an argument list, as one line too.
    const lists = [...code.matchAll(/\[([^\]]*)\]/g)].map((m) =>
      [...m[1]!.matchAll(/'([^']*)'|"([^"]*)"/g)].map((w) => w[1] ?? w[2] ?? '').join(' '),
    );
    for (const text of [...literals, ...lists]) if (/\s/.test(text)) reread(text, walk, depth, undefined);
  }
}

// ------------------------------------------------------------- evaluation

/** Words replaced by their value when the text says what it is (split like bash when unquoted). */
function evaluatedArgv(argv: readonly ShellWord[], state: TextState): ShellWord[] {
  const out: ShellWord[] = [];
  for (const word of argv) {
    if (!word.dynamic) {
      out.push(word);
      continue;
    }
    const values = evaluateWord(word, state);
    if (values.unknown || values.values.length !== 1) out.push(word);
    else if (word.quoted) out.push({ value: values.values[0]!, dynamic: false, quoted: true });
    else
      for (const part of values.values[0]!.split(/\s+/).filter(Boolean))
        out.push({ value: part, dynamic: false, quoted: false });
  }
  return out;
}

/** A command whose name is computed, written out as the lines it may be. */
function rewritten(command: ShellCommand, state: TextState): string[] {
  const heads = evaluateWord(command.argv[0]!, state);
  if (heads.unknown) return [];
  const rest = command.argv.slice(1).map((word) => {
    const values = word.dynamic ? evaluateWord(word, state) : known(word.value);
    if (values.unknown || values.values.length !== 1) return word.value;
    return word.quoted ? `'${values.values[0]!.replace(/'/g, `'\\''`)}'` : values.values[0]!;
  });
  const redirects = command.redirects.map((r) => `${r.op}${r.target.value}`);
  return heads.values.map((head) => [head, ...rest, ...redirects].join(' '));
}

// ------------------------------------------------------------------ paths

interface Judged {
  cls: PathClass;
  path: string;
}

/** Every class the paths `value` may name fall into, and whether some of them cannot be known. */
function judgeValue(value: string, walk: Walk): { hits: Judged[]; uncertain: boolean } {
  const { paths, unknown } = pathCandidates(value, walk.state);
  let uncertain = unknown;
  const hits: Judged[] = [];
  for (const candidate of paths) {
    if (candidate.relative) {
      // Relative to a directory the text does not give: only `.`, `..`, `../x` or a glob could reach far.
      if (/^(\.\.?(\/|$)|[^/]*[*?[])/.test(candidate.path)) uncertain = true;
      continue;
    }
    for (const variant of variants(candidate.path, walk)) {
      const cls = classifyPath(variant, walk.state.homes);
      if (cls !== undefined) hits.push({ cls, path: variant });
    }
  }
  return { hits, uncertain };
}

/** The path, what symlinks made by the line or on disk make of it. */
function variants(p: string, walk: Walk): string[] {
  const out = new Set([p]);
  for (const [link, target] of walk.links) {
    if (p === link || p.startsWith(`${link}/`)) out.add(normalise(target + p.slice(link.length)));
  }
  const realpath = walk.context.realpath;
  if (realpath !== undefined) {
    for (const path of [...out]) {
      const segments = path.split('/');
      const globAt = segments.findIndex((s) => /[*?[]/.test(s));
      const fixed = globAt < 0 ? path : segments.slice(0, globAt).join('/') || '/';
      const rest = globAt < 0 ? '' : `/${segments.slice(globAt).join('/')}`;
      const real = realpath(fixed);
      if (real !== undefined) out.add(normalise(real + rest));
      const parent = fixed.slice(0, fixed.lastIndexOf('/')) || '/';
      const realParent = realpath(parent);
      if (realParent !== undefined && fixed !== '/')
        out.add(normalise(`${realParent}/${fixed.slice(parent.length + 1)}${rest}`));
    }
  }
  return [...out];
}

function describe(word: ShellWord, hit: Judged): string {
  return word.value === hit.path ? word.value : `${word.value} (${hit.path})`;
}

/** A recursive delete or a permission or owner change of what matters (see the file comment). */
function checkPaths(command: ShellCommand, walk: Walk): void {
  const effect = pathEffect(command);
  if (effect === undefined) return;
  let targets = effect.targets;
  let recursive = effect.recursive;
  let inputUnknown = false;
  if (command.via === 'xargs') {
    const extra = pipedArguments(command);
    if (extra === undefined) inputUnknown = true;
    else {
      targets = [...targets, ...extra.words];
      if (extra.recursive && effect.change === 'delete') recursive = true;
    }
  }
  judgeTargets(effect, targets, recursive, inputUnknown, walk);
}

/** Report a change of what matters among `targets`, or (strict) what the text cannot tell. */
function judgeTargets(
  effect: PathEffect,
  targets: readonly ShellWord[],
  recursive: boolean | 'maybe',
  inputUnknown: boolean,
  walk: Walk,
): void {
  const unknownWords = new Set<ShellWord>(effect.unknownOptions);
  let critical: { word: ShellWord; hit: Judged } | undefined;
  let uncertain: ShellWord | undefined;
  for (const word of targets) {
    const values = evaluateWord(word, walk.state);
    if (values.unknown) {
      unknownWords.add(word);
      uncertain ??= word;
    }
    for (const value of values.values) {
      const judged = judgeValue(value, walk);
      if (judged.uncertain) uncertain ??= word;
      if (judged.hits.length > 0) critical ??= { word, hit: judged.hits[0]! };
    }
  }
  const changes =
    effect.program === 'mv' ? 'move away' : effect.change === 'delete' ? 'delete' : 'change the';
  const what = effect.change === 'delete' ? '' : effect.change === 'chmod' ? ' permissions of' : ' owner of';
  if (critical !== undefined && (recursive === true || effect.change !== 'delete')) {
    const kind: EffectKind =
      effect.change === 'delete'
        ? critical.hit.cls === 'root'
          ? 'delete-root'
          : 'delete-home'
        : effect.change === 'chmod'
          ? 'chmod-root'
          : 'chown-root';
    found(walk, {
      effect: kind,
      detail: `${effect.program} would ${changes}${what} ${describe(critical.word, critical.hit)}${recursive === true ? ' recursively' : ''}`,
    });
    return;
  }
  const mayBeRecursive = recursive === 'maybe' && maybeBoth(unknownWords, critical !== undefined);
  if (recursive === true && (uncertain !== undefined || inputUnknown)) {
    const word = uncertain?.value ?? 'the arguments xargs reads';
    unchecked(
      walk,
      `cannot tell what ${effect.program} would ${changes}${what} recursively: ${word} depends on run time`,
    );
  } else if (mayBeRecursive) {
    const word = [...unknownWords][0]?.value ?? '';
    unchecked(
      walk,
      `cannot tell what ${effect.program} would do: ${word} depends on run time and could be an option such as -r`,
    );
  }
}

/** Whether words that depend on run time could supply both a recursive flag and a target. */
function maybeBoth(unknownWords: Set<ShellWord>, criticalTarget: boolean): boolean {
  if (criticalTarget && unknownWords.size > 0) return true;
  return unknownWords.size >= 2 || [...unknownWords].some((w) => !w.quoted);
}

/** What `xargs` hands a command: the words `echo`/`printf` print, or `find`'s start points (and all below). */
function pipedArguments(command: ShellCommand): { words: ShellWord[]; recursive: boolean } | undefined {
  const producer = command.input;
  if (producer === undefined) return undefined;
  const name = programName(producer.argv[0]?.value ?? '');
  if (name === 'find') {
    const found = pathEffect({
      ...producer,
      argv: [...producer.argv, { value: '-delete', dynamic: false, quoted: false }],
    });
    return found === undefined ? undefined : { words: found.targets, recursive: true };
  }
  const texts = printedText(producer);
  if (texts === undefined) return undefined;
  const words = texts.flatMap((t) => t.split(/[\s\0]+/).filter(Boolean));
  return { words: words.map((value) => ({ value, dynamic: false, quoted: true })), recursive: false };
}

// ------------------------------------------------------ other environments

/** `/proc/<pid>/environ` of a process other than the command itself (`self`, `thread-self`). */
const OTHER_ENVIRON = /\/proc\/+(?!(self|thread-self)\/+environ\b)[^\s'"]*environ\b/;

/**
 * A read of another process's environment (`cat /proc/$PPID/environ`): the
 * kernel's initial environment may hold the secrets its commands do not get.
 */
function checkEnvironRead(command: ShellCommand, walk: Walk): void {
  const texts = [...command.argv.map((w) => w.value), ...command.redirects.map((r) => r.target.value)];
  const hit = texts.find((text) => OTHER_ENVIRON.test(text));
  if (hit !== undefined) {
    const path = OTHER_ENVIRON.exec(hit)![0];
    found(walk, {
      effect: 'environ-read',
      detail: `${command.argv[0]?.value ?? 'a redirection'} would read ${path}`,
    });
  }
}

// --------------------------------------------------------------- devices

function checkDevices(command: ShellCommand, walk: Walk): void {
  const written = writtenFiles(command);
  if (written === undefined) return;
  for (const word of written.targets) {
    for (const value of evaluateWord(word, walk.state).values) {
      for (const candidate of pathCandidates(value, walk.state).paths) {
        if (candidate.relative) continue;
        const device = variants(candidate.path, walk).find(isDevice);
        if (device !== undefined) {
          found(walk, {
            effect: 'device-write',
            detail: `${written.program} would write to the device ${device}`,
          });
          return;
        }
      }
    }
  }
}

// ------------------------------------------------------------------ state

/** What a command tells about later ones: assignments, `cd`, symlinks, downloaded files. */
function update(command: ShellCommand, walk: Walk): void {
  const { state } = walk;
  const [head, ...args] = command.argv;
  const name = head === undefined ? '' : programName(head.value);
  if (head === undefined) for (const word of command.assignments) assign(word, state);
  else if (['export', 'declare', 'typeset', 'local', 'readonly'].includes(name)) {
    for (const word of args) if (ASSIGNMENT.test(word.value)) assign(word, state);
  } else if (name === 'unset') {
    for (const word of args) state.vars.set(word.value, UNKNOWN);
  } else if (name === 'cd' || name === 'pushd' || name === 'popd') {
    const target = args.find((w) => !/^-[LPe@]+$/.test(w.value));
    if (name === 'popd' || target?.value === '-') state.cwds = merge(state.cwds, UNKNOWN);
    else if (target === undefined)
      state.cwds = merge(state.cwds, known(...(state.homes.length > 0 ? state.homes : ['/home/~'])));
    else {
      const values = evaluateWord(target, state);
      let next: Values = { values: [], unknown: values.unknown };
      for (const value of values.values) {
        const { paths, unknown } = pathCandidates(value, state);
        next = merge(next, {
          values: paths.filter((p) => !p.relative).map((p) => p.path),
          unknown: unknown || paths.some((p) => p.relative),
        });
      }
      state.cwds = merge(state.cwds, next);
    }
  } else if (name === 'ln' && args.some((w) => /^-[a-zA-Z]*s/.test(w.value) || w.value === '--symbolic')) {
    const operands = args.filter((w) => !w.value.startsWith('-'));
    const [target, link] = operands;
    if (target !== undefined && !target.dynamic) {
      const linkPath = link?.value ?? target.value.replace(/\/+$/, '').split('/').pop() ?? '';
      for (const linkAt of pathCandidates(linkPath, state).paths) {
        if (linkAt.relative) continue;
        const base = linkAt.path.slice(0, linkAt.path.lastIndexOf('/')) || '/';
        for (const to of pathCandidates(
          target.value.startsWith('/') || target.value.startsWith('~')
            ? target.value
            : `${base}/${target.value}`,
          state,
        ).paths) {
          if (!to.relative) walk.links.set(linkAt.path, to.path);
        }
      }
    }
  }
  const fetched = fetches(command, walk) || upstream(command).some((c) => fetches(c, walk));
  if (fetched) {
    const files = isDownloader(command) ? downloadedFiles(command) : [];
    for (const r of command.redirects)
      if (/^(\d*>|&>|>>|&>>|\d*>>|>\|)$/.test(r.op)) files.push(r.target.value);
    if (name === 'tee') for (const word of args) if (!word.value.startsWith('-')) files.push(word.value);
    for (const file of files) for (const key of pathKeys(file, state)) walk.downloaded.add(key);
  }
}

function assign(word: ShellWord, state: TextState): void {
  const m = ASSIGNMENT.exec(word.value);
  if (m === null) return;
  const [, name, raw] = m;
  const values = word.dynamic ? evaluateWord({ ...word, value: raw! }, state) : known(raw!);
  state.vars.set(name!, values);
  if (word.dynamic && remoteSource(raw!, state) !== undefined) state.tainted.add(name!);
  else state.tainted.delete(name!);
  if (name === 'HOME' && !values.unknown)
    state.homes = [...new Set([...state.homes, ...values.values.map(normalise)])];
}

/** Both sets of values; past 64, the shallowest paths are kept (they are the ones that matter) and the rest is unknown. */
function merge(a: Values, b: Values): Values {
  const values = [...new Set([...a.values, ...b.values])];
  if (values.length <= 64) return { values, unknown: a.unknown || b.unknown };
  const depth = (p: string): number => p.split('/').length;
  return { values: values.sort((x, y) => depth(x) - depth(y)).slice(0, 64), unknown: true };
}
