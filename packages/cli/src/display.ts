/**
 * What the user sees while a turn runs. Everything but the final answer goes
 * to stderr: a spinner while the provider works (on a terminal), one line per
 * tool call (name, a short argument summary, duration, ok or error), hook
 * messages. The answer goes to stdout, clean. `--json` replaces all of it with
 * one JSON object per line on stdout.
 *
 * What is printed is the session's data as it is, with one exception: values
 * of secret-named keys (core's `isSecretKey`) are never printed. With
 * `redact`, everything printed also goes through the event log's string rules
 * (`@amplifier/secrets`' `Redactor`: keys, tokens, passwords in commands, URLs,
 * headers, ...).
 *
 * Text the session did not write itself (tool names and arguments the model
 * sends, tool errors, hook messages, log lines quoting MCP servers) goes
 * through core's `terminalSafe` first: no escape sequence, control or bidi
 * character of theirs reaches the terminal; JSON lines escape them.
 *
 * A turn is shown from its turn items (`TurnEvent` of `@amplifier/server`, what
 * `streamTurn(session, prompt, { progress: true })` yields): `render` is the one
 * fold. The runner hands it the stream's items as they happen (the stream's
 * `onEvent`, so a tool line comes before the approval question about it);
 * a call a hook or its approval denied is a `tool_denied` item. `watch`
 * renders the turns of a session something else runs (core's
 * `watchTurnEvents`), `show` a stream. Only `--json`'s dump of every hook
 * event reads the hooks directly (`attachJson`).
 */

import { createRequire } from 'node:module';
import {
  ALL_EVENTS,
  type DisplaySystem,
  type EventName,
  type HookRegistry,
  type Message,
  type MessageLevel,
  redactSecrets,
  stringifyJson,
} from '@amplifier/core';
import { terminalSafe, terminalSafeJson } from '@amplifier/process/terminal';
import { DEFAULT_REDACTION, Redactor } from '@amplifier/secrets';
import {
  type TurnContentBlock,
  type TurnEvent,
  type TurnEventSource,
  type TurnProviderRequest,
  type TurnProviderRetry,
  type TurnStreamAborted,
  type TurnTextDelta,
  type TurnThinkingDelta,
  type TurnToolCall,
  type TurnToolDenied,
  type TurnToolError,
  type TurnToolResult,
  watchTurnEvents,
} from '@amplifier/server/stream';
import { sanitizeValue } from '@amplifier/sessions';
import pc from 'picocolors';
import type { Spinner } from 'yocto-spinner';

type Colors = ReturnType<typeof pc.createColors>;

const requireModule = createRequire(import.meta.url);

/**
 * yocto-spinner's factory, loaded with the first spinner (only a terminal
 * shows one; start-up time). `require` of an ES module (Node 20.19+) keeps
 * the display synchronous.
 */
/** Whether a stream is a terminal (`process.stdout` and `process.stderr` say so with `isTTY`). */
function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

function yoctoSpinner(): typeof import('yocto-spinner').default {
  return (requireModule('yocto-spinner') as typeof import('yocto-spinner')).default;
}

/** Where and how to write. */
export interface DisplayOptions {
  stdout?: NodeJS.WritableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream & { isTTY?: boolean };
  json?: boolean;
  verbose?: boolean;
  /** Apply the event log's redaction rules to everything printed (`--redact`). */
  redact?: boolean;
  /** Show streamed thinking (dimmed, stderr); default true (`--no-thinking` hides it). */
  thinking?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** The providers' token-streaming events (not in core's `ALL_EVENTS`), also printed by `--json`. */
export const STREAM_EVENTS: readonly EventName[] = Object.freeze([
  'llm:stream_block_start',
  'llm:stream_block_delta',
  'llm:stream_block_end',
  'llm:stream_aborted',
]);

/** Turns a finished answer into what the terminal shows (markdown.ts makes one). */
export type MarkdownRenderer = (text: string) => string;

/** Terminal rows `text` takes at `columns` (escape sequences take none; wide characters two cells). */
export function rowsOf(text: string, columns: number): number {
  const plain = text.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, '');
  const lines = plain.endsWith('\n') ? plain.slice(0, -1).split('\n') : plain.split('\n');
  let rows = 0;
  for (const line of lines) {
    let cells = 0;
    for (const ch of line) cells += (ch.codePointAt(0) ?? 0) >= 0x1100 ? 2 : 1;
    rows += Math.max(1, Math.ceil(cells / Math.max(1, columns)));
  }
  return rows;
}

/** Colours only on a terminal, never with `NO_COLOR` (non-empty), always with `FORCE_COLOR` (not 0). */
export function useColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** A one-line summary of a tool's arguments (the command, the path, the pattern, ...). */
export function summarizeArgs(tool: string, input: unknown, max = 60): string {
  if (input === null || typeof input !== 'object') return '';
  const args = input as Record<string, unknown>;
  const preferred: Record<string, string[]> = {
    bash: ['command'],
    read_file: ['file_path'],
    write_file: ['file_path'],
    edit_file: ['file_path'],
    glob: ['pattern', 'path'],
    grep: ['pattern', 'path'],
    web_fetch: ['url'],
    web_search: ['query'],
  };
  const keys = preferred[tool] ?? Object.keys(args);
  const parts = keys
    .map((k) => args[k])
    .filter((v) => v !== undefined && v !== null && v !== '')
    .map((v) => (typeof v === 'string' ? v : stringifyJson(v)));
  let text = (preferred[tool] ? parts.join(' ') : (parts[0] ?? '')).replace(/\s+/g, ' ').trim();
  if (text.length > max) text = `${text.slice(0, max - 1)}…`;
  return text;
}

/** `850 ms`, `1.2 s`, `2 min 5 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Seconds to one decimal (`0.8`), as a retry wait is shown. */
function roundedSeconds(seconds: number): string {
  return (Math.round(seconds * 10) / 10).toString();
}

/** The first non-blank line of untrusted text, terminal-safe and capped. */
function firstLine(text: string, max = 100): string {
  const line = terminalSafe(text.split(/[\r\n]/).find((l) => terminalSafe(l).trim() !== '') ?? '');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

interface RunningCall {
  name: string;
  args: string;
  started: number;
  /** Extra indentation: a child session's calls sit under the delegate call. */
  indent: string;
}

/** Where a tool call is shown: its key in the running calls, and its indentation. */
interface CallPlace {
  key: string;
  indent: string;
}

/** The live display of a session; also the kernel's `DisplaySystem` for hook messages. */
export class Display implements DisplaySystem {
  readonly json: boolean;
  readonly verbose: boolean;
  /** `--redact`: the event log's rules (keys and strings); undefined: only secret-named keys are hidden. */
  readonly #redactor: Redactor | undefined;
  readonly colors: Colors;
  /** stderr is a terminal that can redraw (spinner, in-place updates). */
  readonly interactive: boolean;
  readonly #stdout: NodeJS.WritableStream;
  readonly #stderr: NodeJS.WritableStream;
  readonly #running = new Map<string, RunningCall>();
  #spinner: Spinner | undefined;
  #thinking = false;
  #narrate = false;
  /** Something was shown on stderr since the last answer (the answer is then set apart by a blank line). */
  #shown = false;
  /** Show streamed thinking deltas. */
  readonly thinking: boolean;
  /** Text of the current provider call written to stdout as it streamed. */
  #streamedText = '';
  /** The `request_id` of the stream `#streamedText` came from. */
  #streamId: unknown;
  /**
   * The text the current provider call streamed, in every mode (`--json` and `--redact` too):
   * the partial answer of a turn cancelled mid-stream.
   */
  #partial = '';
  #partialId: unknown;
  /** A thinking block is being written to stderr (it ends with a newline). */
  #thinkingOpen = false;
  /** Thinking of the current provider call was shown as it streamed. */
  #thinkingStreamed = false;
  /** What stdout last ended with: a newline (or nothing yet). */
  #stdoutAtLineStart = true;

  constructor(options: DisplayOptions = {}) {
    const env = options.env ?? process.env;
    const stderr = options.stderr ?? process.stderr;
    this.#stdout = options.stdout ?? process.stdout;
    this.#stderr = stderr;
    this.json = options.json ?? false;
    this.verbose = options.verbose ?? false;
    this.thinking = options.thinking ?? true;
    this.#redactor = options.redact ? new Redactor(DEFAULT_REDACTION, env) : undefined;
    this.colors = pc.createColors(useColor(stderr, env));
    this.interactive = stderr.isTTY === true && env.TERM !== 'dumb' && !('CI' in env);
  }

  // ------------------------------------------------------------ plain output

  /** `text` as it may be printed: as it is, or through the event log's string rules with `--redact`. */
  safeText(text: string): string {
    return this.#redactor === undefined ? text : this.#redactor.redactString(text, new Set());
  }

  /**
   * `value` as it may be printed as JSON: values of secret-named keys
   * replaced (core's `redactSecrets`), or with `--redact` the event log's
   * copy (keys and strings redacted, as in events.jsonl).
   */
  safeData(value: unknown): unknown {
    if (this.#redactor === undefined) return redactSecrets(value);
    return sanitizeValue(value, { redactor: this.#redactor }).value;
  }

  /** A line on stderr (the spinner steps aside). */
  line(text: string): void {
    if (this.json) return;
    this.#stdoutStepsAside();
    this.#stderr.write(`${this.safeText(text)}\n`);
    this.#shown = text !== '';
  }

  /** A line on stderr, also in JSON mode (warnings and errors must never vanish). */
  problem(text: string): void {
    this.#stopSpinner();
    this.#stderr.write(`${this.safeText(text)}\n`);
  }

  /** An error line: the text made terminal-safe (it often quotes a server, a file or a model), then coloured. */
  error(text: string): void {
    this.problem(this.colors.red(`Error: ${terminalSafe(text, { multiline: true })}`));
  }

  /** A warning line: the text made terminal-safe, then coloured. */
  warn(text: string): void {
    this.problem(this.colors.yellow(terminalSafe(text, { multiline: true })));
  }

  /** A debug line, only with --verbose. */
  debug(text: string): void {
    if (this.verbose) this.line(this.colors.dim(text));
  }

  /**
   * The final answer: stdout, nothing added but a newline. When the last
   * provider call streamed it, it is already on stdout: only the newline is
   * added.
   */
  answer(text: string): void {
    this.#stopSpinner();
    if (this.json) return;
    if (this.markdown !== undefined && this.#answerAsMarkdown(text, this.markdown)) return;
    if (this.#streamedText !== '') {
      this.#endStdoutLine();
      this.#streamedText = '';
      this.#shown = false;
      return;
    }
    if (this.#shown) this.#stderr.write('\n');
    this.#shown = false;
    const safe = this.safeText(text);
    this.#stdout.write(safe.endsWith('\n') ? safe : `${safe}\n`);
    this.#stdoutAtLineStart = true;
  }

  /**
   * Renders finished answers (the REPL sets it on a terminal with colours:
   * markdown.ts). A streamed answer stays raw while it streams, then is
   * redrawn rendered when all of it is still on the screen.
   */
  markdown: MarkdownRenderer | undefined;

  /** The answer rendered; false when it cannot be (left as the plain path prints it). */
  #answerAsMarkdown(text: string, render: MarkdownRenderer): boolean {
    const screen = this.#stdout as { columns?: number; rows?: number };
    const streamed = this.#streamedText;
    let rendered: string;
    try {
      rendered = render(this.safeText(text));
    } catch {
      return false;
    }
    if (streamed !== '') {
      const rows = rowsOf(streamed, screen.columns || 80);
      // Scrolled off the screen: what streamed stays as it is.
      if (rows >= (screen.rows || 24) - 1) return false;
      const up = this.#stdoutAtLineStart && streamed.endsWith('\n') ? rows : rows - 1;
      const extra = this.#stdoutAtLineStart && !streamed.endsWith('\n') ? 1 : 0;
      // Back to the first row of the streamed text, erase to the end of the screen, draw it rendered.
      this.#stdout.write(`\r${up + extra > 0 ? `\x1b[${up + extra}A` : ''}\x1b[J`);
      this.#streamedText = '';
    } else if (this.#shown) {
      this.#stderr.write('\n');
    }
    this.#shown = false;
    this.#stdout.write(rendered);
    this.#stdoutAtLineStart = true;
    return true;
  }

  /** The text the last provider call streamed so far (the partial answer of an interrupted turn). */
  get streamedText(): string {
    return this.#partial;
  }

  /** Follow the streamed text of the current provider call (all modes). */
  #track(item: TurnEvent): void {
    if (item.type === 'provider_request') this.#partial = '';
    else if (item.type === 'text_delta') {
      if (item.request_id !== this.#partialId) this.#partial = '';
      this.#partialId = item.request_id;
      this.#partial += item.text;
    } else if (item.type === 'stream_aborted' && item.error.type !== 'AbortError') this.#partial = '';
  }

  /**
   * On a terminal, text streamed to stdout without its newline ("Looking
   * around the project.") ends its line before stderr draws: the spinner
   * redraws its line from column 1 and would erase it, and a tool line would
   * be glued to it (also without a spinner, as under CI=true, when both
   * streams are the terminal).
   */
  #stdoutStepsAside(): void {
    if (this.#stdoutAtLineStart) return;
    const sharedTerminal = isTerminal(this.#stdout) && isTerminal(this.#stderr);
    if (this.interactive || sharedTerminal) this.#endStdoutLine();
  }

  #endStdoutLine(): void {
    if (!this.#stdoutAtLineStart) this.#stdout.write('\n');
    this.#stdoutAtLineStart = true;
  }

  #closeThinking(): void {
    if (!this.#thinkingOpen) return;
    this.#thinkingOpen = false;
    this.#stderr.write('\n');
  }

  /** One JSON object per line on stdout (--json), through `safeData`. */
  emitJson(record: Record<string, unknown>): void {
    if (this.json) this.#stdout.write(`${terminalSafeJson(stringifyJson(this.safeData(record)))}\n`);
  }

  /** Hook `user_message`s: `[source] message` on stderr, coloured by level. */
  showMessage(message: string, level: MessageLevel, source: string): void {
    if (this.json) {
      this.emitJson({ type: 'message', level, source, message });
      return;
    }
    const paint =
      level === 'error' ? this.colors.red : level === 'warning' ? this.colors.yellow : this.colors.cyan;
    this.problem(paint(`[${terminalSafe(source)}] ${terminalSafe(message, { multiline: true })}`));
  }

  /** Stop the spinner, e.g. before asking the user something. */
  pause(): void {
    this.#stopSpinner();
  }

  // ------------------------------------------------------------ events

  /**
   * Show one turn item (an item of `streamTurn(session, prompt, { progress: true })`):
   * the display's only fold of a turn. With `--json` only the streamed text is
   * followed (`streamedText`); the JSON lines come from `attachJson`.
   */
  render(item: TurnEvent): void {
    this.#track(item);
    this.#render(item);
  }

  /**
   * Show every item of a turn stream (`streamTurn(session, prompt, { progress: true })`)
   * as it comes; resolves with the answer (`finish`), or rejects with the turn's error.
   */
  async show(stream: AsyncIterable<TurnEvent>): Promise<string> {
    let answer = '';
    for await (const item of stream) {
      if (item.type === 'finish') answer = item.text;
      this.render(item);
    }
    return answer;
  }

  #render(item: TurnEvent, place?: CallPlace): void {
    if (this.json) return;
    switch (item.type) {
      case 'provider_request':
        this.#onProviderRequest(item);
        break;
      case 'text_delta':
      case 'thinking_delta':
        this.#onDelta(item);
        break;
      case 'block_end':
        this.#closeThinking();
        break;
      case 'stream_aborted':
        this.#onStreamAborted(item);
        break;
      case 'provider_response':
        this.#narrate = item.tool_calls;
        this.#afterProvider();
        break;
      case 'provider_error':
        this.#afterProvider();
        break;
      case 'provider_retry':
        this.#onRetry(item);
        break;
      case 'content_block':
        this.#onBlock(item);
        break;
      case 'tool_call':
        this.#onToolPre(item, place);
        break;
      case 'tool_result':
        this.#onToolPost(item, place);
        break;
      case 'tool_error':
        this.#onToolError(item, place);
        break;
      case 'tool_denied':
        this.#onToolDenied(item, place);
        break;
      case 'compaction':
        this.debug(`context compacted (level ${String(item.strategy_level ?? '?')})`);
        break;
      default:
        // usage, finish: nothing to show.
        break;
    }
  }

  /**
   * Show the turns of a session something else runs (a test's coordinator,
   * an embedding app): `watchTurnEvents` with progress items, each
   * rendered where it is emitted. Returns the function that stops it.
   */
  watch(source: TurnEventSource): () => void {
    const stop = watchTurnEvents(source, (item) => this.render(item), { progress: true });
    return () => {
      stop();
      this.#stopSpinner();
    };
  }

  /** `watch` the registry's turns and, with `--json`, dump its events (`attachJson`). */
  attach(hooks: HookRegistry): () => void {
    const stopWatching = this.watch({ hooks });
    const stopJson = this.attachJson(hooks);
    return () => {
      stopWatching();
      stopJson();
    };
  }

  /**
   * `--json`: every hook event as one line, `{type: 'event', event, data}`,
   * after every other hook (hooks-redaction at 10, loggers at 100), so it
   * carries the data as the hooks left it, masked as events.jsonl is. A raw
   * dump of the kernel's events, not the display. Without `--json` nothing
   * is registered. Returns the unsubscribe function.
   */
  attachJson(hooks: HookRegistry): () => void {
    if (!this.json) return () => {};
    const last = { priority: 1000, name: 'cli-display-json' };
    const offs = [...ALL_EVENTS, ...STREAM_EVENTS].map((event) =>
      hooks.register(
        event,
        (name, data) => {
          this.emitJson({ type: 'event', event: name, data });
        },
        last,
      ),
    );
    return () => {
      for (const off of offs) off();
    };
  }

  /**
   * A child (agent) session's tool calls, shown as they run, indented under
   * the delegate call by `depth` levels: its turn items (core's
   * `watchTurnEvents`, tool items only). With --json: its events, each with
   * `depth` and `agent`. Returns the unsubscribe function.
   */
  attachChild(
    child: { sessionId: string; coordinator: TurnEventSource },
    depth: number,
    agent: string,
  ): () => void {
    const { hooks } = child.coordinator;
    if (this.json) {
      const last = { priority: 1000, name: 'cli-display-child-json' };
      const childEvents: EventName[] = ['session:fork', 'tool:pre', 'tool:post', 'tool:error', 'session:end'];
      const offs = childEvents.map((event) =>
        hooks.register(
          event,
          (name, data) => {
            this.emitJson({ type: 'event', event: name, depth, agent, data });
          },
          last,
        ),
      );
      return () => {
        for (const off of offs) off();
      };
    }
    const indent = '  '.repeat(depth);
    return watchTurnEvents(
      child.coordinator,
      (item) => {
        // The child's text, spinner and provider calls are not the parent's: only its tool lines.
        if (!('tool_name' in item)) return;
        this.#render(item, { key: `${child.sessionId}:${item.tool_call_id ?? ''}`, indent });
      },
      // Progress for `tool_denied`: a call the child's hooks refused is shown too.
      { progress: true },
    );
  }

  /**
   * A tool message reached the context. Calls the orchestrator closed
   * without a turn item (cancelled before they ran) are closed here with
   * their text; a denied call was closed by its `tool_denied`.
   */
  toolMessage(message: Message): void {
    if (this.json || message.role !== 'tool' || message.tool_call_id === undefined) return;
    const call = this.#running.get(message.tool_call_id);
    if (call === undefined) return;
    const content = typeof message.content === 'string' ? message.content : '';
    this.#finish(message.tool_call_id, false, firstLine(content));
  }

  /** Close every call still shown as running (the turn ended). */
  endTurn(): void {
    for (const id of [...this.#running.keys()]) this.#finish(id, false, 'not finished');
    this.#thinking = false;
    this.#stopSpinner();
    this.#closeThinking();
    // An interrupted or failed stream: the partial text keeps its own line.
    if (this.#streamedText !== '' && !this.json) this.#endStdoutLine();
  }

  /** A new turn starts: forget what the previous one streamed. */
  beginTurn(): void {
    this.#streamedText = '';
    this.#partial = '';
  }

  /**
   * A streamed fragment. Text goes to stdout as it comes (not with --redact:
   * a secret split across fragments would escape the rules; the answer is
   * then printed whole at the end), thinking dimmed to stderr.
   */
  #onDelta(data: TurnTextDelta | TurnThinkingDelta): void {
    if (data.text === '') return;
    if (data.type === 'thinking_delta') {
      if (!this.thinking || this.#redactor !== undefined) return;
      this.#stopSpinner();
      this.#thinkingOpen = true;
      this.#thinkingStreamed = true;
      this.#stderr.write(this.colors.dim(data.text));
      this.#shown = true;
      return;
    }
    if (this.#redactor !== undefined) return;
    this.#stopSpinner();
    this.#closeThinking();
    // Another model call streams within the same provider call (a provider retrying after a
    // failed stream): what the earlier one wrote keeps its own line and does not count as the answer.
    if (this.#streamedText !== '' && data.request_id !== this.#streamId) {
      this.#endStdoutLine();
      this.#streamedText = '';
    }
    this.#streamId = data.request_id;
    if (this.#streamedText === '' && this.#shown) {
      this.#stderr.write('\n');
      this.#shown = false;
    }
    this.#streamedText += data.text;
    this.#stdout.write(data.text);
    this.#stdoutAtLineStart = data.text.endsWith('\n');
  }

  /** A stream failed after some deltas: the partial text ends its line; a note unless the user cancelled. */
  #onStreamAborted(data: TurnStreamAborted): void {
    this.#closeThinking();
    if (this.#streamedText === '') return;
    this.#endStdoutLine();
    // Cancelled: the partial text is the turn's partial answer (kept as interrupted).
    if (data.error.type === 'AbortError') return;
    // Failed: it is not the answer; a retry's answer is then printed (or streamed) in full.
    this.#streamedText = '';
    this.line(this.colors.dim(`(the answer stopped: ${firstLine(data.error.msg || 'stream failed')})`));
  }

  #onProviderRequest(data: TurnProviderRequest): void {
    this.#thinking = true;
    this.#narrate = false;
    this.#closeThinking();
    this.#thinkingStreamed = false;
    // Text streamed by an earlier call of this turn (alongside tool calls) ends its line.
    if (this.#streamedText !== '') this.#endStdoutLine();
    this.#streamedText = '';
    const provider = data.provider || 'model';
    if (this.interactive) this.#spin(`${provider} is thinking…`);
    else this.debug(`… waiting for ${provider}`);
  }

  #afterProvider(): void {
    this.#thinking = false;
    if (this.#running.size === 0) this.#stopSpinner();
  }

  #onRetry(data: TurnProviderRetry): void {
    const count =
      data.attempt !== undefined && data.max_retries !== undefined
        ? `retry ${data.attempt}/${data.max_retries}`
        : 'retrying';
    const delay = data.delay !== undefined ? ` in ${roundedSeconds(data.delay)} s` : '';
    const reason = data.cause ?? data.error;
    const text = `${count}${delay}${reason !== undefined ? `: ${firstLine(reason)}` : ''}`;
    if (this.interactive && this.#spinner) this.#spinner.text = this.safeText(text);
    else this.line(this.colors.dim(text));
  }

  /** Text the model wrote alongside tool calls ("Let me read the README."), dimmed. */
  #onBlock(block: TurnContentBlock): void {
    if (block.block_type === 'thinking') {
      if (this.#thinkingStreamed) return;
      this.debug(`thinking: ${firstLine(block.text, 200)}`);
      return;
    }
    if (!this.#narrate) return;
    // Already on stdout as it streamed.
    if (this.#streamedText !== '') return;
    const text = terminalSafe(block.text, { multiline: true }).trim();
    if (text !== '') this.line(this.colors.dim(text));
  }

  #onToolPre(data: TurnToolCall, place?: CallPlace): void {
    const id = place?.key ?? data.tool_call_id ?? '';
    const indent = place?.indent ?? '';
    // The model chose the name and the arguments: never printed raw.
    const name = terminalSafe(data.tool_name || 'tool', { max: 80 });
    const args = terminalSafe(summarizeArgs(name, redactSecrets(data.tool_input)));
    this.#running.set(id, { name, args, started: performance.now(), indent });
    if (this.interactive) {
      this.#spin(this.#running.size === 1 ? `${name} ${args}` : `${this.#running.size} tools running`);
    } else {
      this.line(`${indent}  ${this.colors.cyan('→')} ${this.colors.bold(name)} ${args}`.trimEnd());
    }
  }

  #onToolPost(data: TurnToolResult, place?: CallPlace): void {
    // The result is the tool's data: its fields are checked, not trusted.
    const result = data.result as { success?: unknown; error?: { message?: unknown } } | undefined;
    const ok = result?.success !== false;
    const message = ok ? '' : firstLine(String(result?.error?.message ?? 'failed'));
    this.#finish(place?.key ?? data.tool_call_id ?? '', ok, message);
  }

  #onToolError(data: TurnToolError, place?: CallPlace): void {
    this.#finish(place?.key ?? data.tool_call_id ?? '', false, firstLine(data.error.msg || 'error'));
  }

  /**
   * A call a hook (or its approval) refused: closed with the reason. A call
   * denied before the display saw it (a hook denied it outright) is shown
   * first, so it reads like any other call.
   */
  #onToolDenied(data: TurnToolDenied, place?: CallPlace): void {
    const id = place?.key ?? data.tool_call_id ?? '';
    if (!this.#running.has(id)) this.#onToolPre({ ...data, type: 'tool_call' }, place);
    this.#finish(id, false, firstLine(`Denied by hook: ${data.reason}`));
  }

  #finish(id: string, ok: boolean, message: string): void {
    const call = this.#running.get(id);
    if (call === undefined) return;
    this.#running.delete(id);
    const c = this.colors;
    const mark = ok ? c.green('✓') : c.red('✗');
    const took = c.dim(formatDuration(performance.now() - call.started));
    const tail = message === '' ? '' : ` ${c.red(message)}`;
    this.line(
      `${call.indent}  ${mark} ${c.bold(call.name)} ${call.args}${call.args ? ' ' : ''}${took}${tail}`,
    );
    if (this.interactive) {
      const next = [...this.#running.values()][0];
      if (next !== undefined)
        this.#spin(
          this.#running.size === 1 ? `${next.name} ${next.args}` : `${this.#running.size} tools running`,
        );
      else if (!this.#thinking) this.#stopSpinner();
    }
  }

  #spin(raw: string): void {
    if (!this.interactive) return;
    const text = this.safeText(raw);
    if (this.#spinner === undefined) {
      this.#stdoutStepsAside();
      this.#spinner = yoctoSpinner()({
        text,
        stream: this.#stderr as NodeJS.WriteStream,
        handleSignals: false,
      });
      this.#spinner.start();
    } else {
      this.#spinner.text = text;
    }
  }

  #stopSpinner(): void {
    if (this.#spinner !== undefined) {
      this.#spinner.stop();
      this.#spinner = undefined;
    }
  }
}
