/**
 * The CLI's ApprovalProvider for `ask_user` hook results: on a terminal it asks
 * y/n (and a for "always" when the hook offers it) with the hook's prompt (the kernel enforces the timeout and aborts the
 * question); without one it answers the hook's default, which is deny unless
 * the hook says otherwise.
 */
import { isatty } from 'node:tty';
import type { ApprovalProvider, ApprovalRequest } from '@amplifier/core';
import { terminalSafe } from '@amplifier/process/terminal';
import type { Display } from './display.js';

/** Asks one question and resolves with the typed line; rejects when `signal` aborts. */
export type AskFunction = (question: string, signal: AbortSignal) => Promise<string>;

export interface ApprovalOptions {
  display: Display;
  /** A person can answer (stdin and stderr are terminals). */
  interactive: boolean;
  /** Default: a short-lived readline on stdin/stderr. */
  ask?: AskFunction;
  /** Called when the user presses Ctrl+C at the question (the question is then denied). */
  onInterrupt?: () => void;
}

/**
 * Map a typed answer to the kernel's vocabulary: "allow" or "deny", or the
 * request's "always" option (e.g. "Allow always") when it offers one and the
 * answer is `a`/`always`. An empty answer takes the default.
 */
export function interpretAnswer(
  answer: string,
  fallback: 'allow' | 'deny',
  options: readonly string[] = [],
): string {
  const a = answer.trim().toLowerCase();
  if (a === '') return fallback;
  if (a === 'y' || a === 'yes' || a === 'allow' || a === 'allow once') return 'allow';
  const always = alwaysOption(options);
  if (always !== undefined && (a === 'a' || a === 'always' || a === always.toLowerCase())) return always;
  return 'deny';
}

/** The option that grants more than this one call ("Allow always"), if the hook offers one. */
function alwaysOption(options: readonly string[]): string | undefined {
  return options.find((option) => /^allow\b.*\balways\b/i.test(option.trim()));
}

/**
 * Whether a question can be asked on this terminal: stdin and stderr are both
 * terminals. `isatty(0)` rather than `process.stdin.isTTY`, which builds a
 * stream over stdin (a few ms of start-up for a prompt given as an argument).
 */
export function terminalCanAsk(): boolean {
  return isatty(0) && process.stderr.isTTY === true;
}

/** A question on a terminal through a readline that lives only for this question. */
export function terminalAsk(onInterrupt?: () => void): AskFunction {
  return (question, signal) =>
    new Promise<string>((resolve, reject) => {
      // Loaded on the first question (start-up time: most runs never ask one).
      const readline = process.getBuiltinModule('node:readline');
      const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
      const done = (finish: () => void): void => {
        signal.removeEventListener('abort', onAbort);
        rl.close();
        finish();
      };
      const onAbort = (): void => done(() => reject(signal.reason));
      rl.on('SIGINT', () => {
        process.stderr.write('\n');
        done(() => resolve('n'));
        onInterrupt?.();
      });
      signal.addEventListener('abort', onAbort, { once: true });
      rl.question(question, (answer) => done(() => resolve(answer)));
    });
}

export class CliApproval implements ApprovalProvider {
  readonly #display: Display;
  readonly #interactive: boolean;
  /** How a question is asked; the REPL swaps in one that uses its own readline. */
  ask: AskFunction;

  /** Set when there is no terminal: every request gets its default. */
  readonly unattended: string | undefined;

  constructor(options: ApprovalOptions) {
    this.#display = options.display;
    this.#interactive = options.interactive;
    this.unattended = options.interactive ? undefined : 'no terminal to ask';
    this.ask = options.ask ?? terminalAsk(options.onInterrupt);
  }

  async requestApproval(request: ApprovalRequest, options: { signal?: AbortSignal } = {}): Promise<string> {
    const c = this.#display.colors;
    // The prompt quotes the model's tool name and arguments: no escape sequence of theirs may
    // redraw the question the user answers.
    const source = request.hook_name ? ` (${terminalSafe(request.hook_name)})` : '';
    const prompt = terminalSafe(request.prompt, { multiline: true });
    if (!this.#interactive) {
      this.#display.warn(`Approval needed${source}: ${prompt}`);
      this.#display.warn(
        `→ ${request.default === 'allow' ? 'allowed' : 'denied'}: ${this.unattended} (default)`,
      );
      return request.default;
    }
    this.#display.pause();
    const always = alwaysOption(request.options);
    const hint = `${request.default === 'allow' ? '[Y/n' : '[y/N'}${always ? '/a' : ''}]`;
    const timeout = Number.isFinite(request.timeout) ? `, ${request.default} in ${request.timeout} s` : '';
    const question = `${c.yellow('?')} ${c.bold(`Approve${source}:`)} ${prompt} ${hint}${c.dim(timeout)} `;
    const signal = options.signal ?? new AbortController().signal;
    try {
      const decision = interpretAnswer(await this.ask(question, signal), request.default, request.options);
      const shown =
        decision === 'deny' ? 'denied' : decision === 'allow' ? 'allowed' : `allowed (${decision})`;
      this.#display.line(c.dim(`  ${shown}`));
      return decision;
    } catch {
      this.#display.line(c.dim(`  no answer in time: ${request.default}`));
      return request.default;
    }
  }
}
