/**
 * Code fetched from the network and run by an interpreter: through a pipe,
 * a command or process substitution, a here-string, a variable holding a
 * download, or a file the same command line downloaded.
 */
import {
  programName,
  SHELLS,
  type ShellCommand,
  type ShellWord,
  splitShellCommands,
} from '@amplifier/process/shell';
import { isDownloader, isDownloaderName, programSource } from './programs.js';
import { evaluateWord, pathCandidates, type TextState } from './targets.js';
import { found, type Walk } from './walk.js';

/** The commands upstream of `command` in its pipeline (its writer, that one's writer...). */
export function upstream(command: ShellCommand): ShellCommand[] {
  const out: ShellCommand[] = [];
  for (let c = command.input; c !== undefined && out.length < 64; c = c.input) out.push(c);
  return out;
}

/** A word (or here-document text) that runs a downloader in a substitution: `"$(curl …)"`, `<(wget …)`. */
function substitutesDownload(text: string): string | undefined {
  const fetcher = splitShellCommands(text).find((c) => c.depth > 0 && isDownloader(c));
  return fetcher === undefined ? undefined : programName(fetcher.argv[0]?.value ?? 'a network read');
}

/** A variable holding downloaded text, named in `text` (`"$C"`, `${C}`). */
function taintedIn(text: string, state: TextState): string | undefined {
  for (const name of state.tainted) if (new RegExp(`\\$\\{?${name}\\b`).test(text)) return name;
  return undefined;
}

/** What puts code from the network into `text`: a download in a substitution (`curl`), or a variable holding one (`$C`). */
export function remoteSource(text: string, state: TextState): string | undefined {
  const fetcher = substitutesDownload(text);
  if (fetcher !== undefined) return fetcher;
  const name = taintedIn(text, state);
  return name === undefined ? undefined : `$${name} (a download)`;
}

/**
 * Whether `command` writes what it fetched from the network: a downloader
 * (also one whose name the text computes), or `echo`/`printf` of a variable
 * holding a download.
 */
export function fetches(command: ShellCommand, walk: Walk): boolean {
  if (isDownloader(command)) return true;
  const head = command.argv[0];
  if (head === undefined) return false;
  if (head.dynamic)
    return evaluateWord(head, walk.state).values.some((v) =>
      isDownloaderName(v.trim().split(/\s+/)[0] ?? ''),
    );
  return (
    ['echo', 'printf', 'cat'].includes(programName(head.value)) &&
    command.argv.slice(1).some((w) => w.dynamic && taintedIn(w.value, walk.state) !== undefined)
  );
}

/** Code fetched from the network, piped or substituted into an interpreter, or saved and then run. */
export function checkRemote(
  command: ShellCommand,
  index: number,
  commands: readonly ShellCommand[],
  walk: Walk,
): void {
  const detail = remoteCode(command, index, commands, walk);
  if (detail !== undefined) found(walk, { effect: 'remote-code', detail });
}

function remoteCode(
  command: ShellCommand,
  index: number,
  commands: readonly ShellCommand[],
  walk: Walk,
): string | undefined {
  const head = command.argv[0];
  if (head === undefined) return undefined;
  if (head.dynamic) {
    const fetcher = remoteSource(head.value, walk.state);
    return fetcher === undefined ? undefined : `what ${fetcher} prints would be run as a command`;
  }
  if (isDownloadedFile(head, walk)) return `${head.value} would run a file downloaded by this command line`;
  const source = programSource(command, SHELLS);
  if (source === undefined) return undefined;
  const who = source.interpreter;
  for (const word of [...source.code, ...source.files]) {
    const fetcher = word.dynamic ? remoteSource(word.value, walk.state) : undefined;
    if (fetcher !== undefined) return `${who} would run code from ${fetcher} (${word.value})`;
  }
  for (const word of source.files) {
    if (!word.dynamic && /^(https?|ftp):\/\//i.test(word.value))
      return `${who} would run code from ${word.value}`;
    if (isDownloadedFile(word, walk))
      return `${who} would run ${word.value}, downloaded by this command line`;
  }
  const viaXargs = command.via === 'xargs';
  if (!source.stdin && !viaXargs) return undefined;
  const input = viaXargs ? undefined : command.redirects.findLast((r) => /^\d*(<|<<|<<-|<<<|<>)$/.test(r.op));
  if (input !== undefined) {
    const text = input.heredoc ? (input.heredoc.expands ? input.heredoc.body : '') : input.target.value;
    const fetcher = input.heredoc || input.target.dynamic ? remoteSource(text, walk.state) : undefined;
    if (fetcher !== undefined)
      return `${who} would run code from ${fetcher} (${input.op} ${text.slice(0, 80)})`;
    if (/^\/dev\/(tcp|udp)\//.test(input.target.value))
      return `${who} would run code read from ${input.target.value}`;
    if (!input.heredoc && isDownloadedFile(input.target, walk)) {
      return `${who} would run ${input.target.value}, downloaded by this command line`;
    }
    return undefined;
  }
  if (!command.piped) return undefined;
  // What writes to the pipe; when it is not a simple command (`(curl …) | sh`), anything before it.
  const writers = command.input === undefined ? commands.slice(0, index) : upstream(command);
  const fetcher = writers.find((w) => fetches(w, walk));
  if (fetcher === undefined) return undefined;
  return `${who} would run what ${fetcher.argv[0]?.value ?? 'a network read'} downloads, through a pipe`;
}

function isDownloadedFile(word: ShellWord, walk: Walk): boolean {
  if (walk.downloaded.size === 0 || word.dynamic) return false;
  return pathKeys(word.value, walk.state).some((key) => walk.downloaded.has(key));
}

/** How a file path is remembered: absolute candidates, or `rel:` + the normalised relative path. */
export function pathKeys(value: string, state: TextState): string[] {
  return pathCandidates(value, state).paths.map((c) => (c.relative ? `rel:${c.path}` : c.path));
}
