/**
 * The interactive REPL of `amplifier run` (no prompt, stdin a terminal):
 * line editing and history (kept in AMPLIFIER_HOME/repl_history), slash
 * commands, Ctrl+C that cancels the running turn, Ctrl+D or /exit to leave.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { ContextManager, Message } from '@amplifier/core';
import { describeError, EXIT_CANCELLED, EXIT_OK } from './errors.js';
import {
  agentLines,
  compactNow,
  costLines,
  currentProvider,
  meterUsage,
  modelOf,
  switchModel,
  type UsageTotals,
} from './repl-commands.js';
import type { SessionRunner } from './runner.js';
import { sandboxLines } from './sandbox-status.js';
import { amplifierHome } from './sessions.js';

const COMMANDS: ReadonlyArray<[string, string]> = [
  ['/help', 'show this list'],
  ['/tools', 'list the mounted tools'],
  ['/status', 'session, provider, model, turns, working directory, sandbox'],
  ['/model [name]', "show the current provider's model and the ones it lists; with a name, switch to it"],
  ['/compact', 'compact the conversation now (the transcript on disk keeps every message)'],
  ['/agents', 'the agents the model can delegate to'],
  ['/cost', 'tokens and cost of the model calls so far'],
  ['/clear', 'forget the conversation (context and transcript)'],
  ['/save [file]', 'write the conversation to a JSON file'],
  ['/exit', 'leave (also Ctrl+D)'],
];

const HISTORY_SIZE = 500;

function historyFile(): string {
  return path.join(amplifierHome(), 'repl_history');
}

function loadHistory(): string[] {
  try {
    return fs.readFileSync(historyFile(), 'utf8').split('\n').filter(Boolean).slice(0, HISTORY_SIZE);
  } catch {
    return [];
  }
}

function saveHistory(history: readonly string[]): void {
  try {
    fs.mkdirSync(path.dirname(historyFile()), { recursive: true });
    fs.writeFileSync(historyFile(), `${history.slice(0, HISTORY_SIZE).join('\n')}\n`);
  } catch {
    // History is a convenience; never fail the REPL for it.
  }
}

function setRaw(on: boolean): void {
  if (process.stdin.isTTY) process.stdin.setRawMode(on);
}

/** Run the REPL until /exit, Ctrl+D or two Ctrl+C at an empty prompt. Returns the exit code. */
export async function repl(runner: SessionRunner): Promise<number> {
  const { display } = runner;
  const c = display.colors;
  const rl = readline.createInterface({
    input: process.stdin,
    output: process.stderr,
    terminal: true,
    history: loadHistory(),
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
    prompt: `${c.cyan('›')} `,
  });
  rl.on('history', (history: string[]) => saveHistory(history));
  const usage = meterUsage(runner.session.coordinator.hooks);
  // Finished answers as Markdown on a terminal with colours (loaded here: a one-shot run never loads it).
  const markdown = await import('./markdown.js');
  if (markdown.rendersMarkdown(process.stdout) && !display.json) {
    display.markdown = await markdown.markdownRenderer(process.stdout.columns || 80).catch(() => undefined);
  }

  // Approval questions during a turn go through this readline (one reader of stdin).
  let answerInterrupted: (() => void) | undefined;
  runner.approval.ask = (question, signal) =>
    new Promise<string>((resolve, reject) => {
      setRaw(true);
      const finish = (): void => {
        answerInterrupted = undefined;
        signal.removeEventListener('abort', onAbort);
        setRaw(false);
      };
      const onAbort = (): void => {
        finish();
        rl.write(null, { ctrl: true, name: 'u' });
        reject(signal.reason);
      };
      answerInterrupted = () => {
        finish();
        resolve('n');
      };
      signal.addEventListener('abort', onAbort, { once: true });
      rl.question(question, { signal }, (answer) => {
        finish();
        resolve(answer);
      });
    });

  const { id } = runner.record;
  display.line(
    `${c.bold('amplifier')} ${c.dim('·')} session ${id.slice(0, 8)} ${c.dim('·')} ${runner.resolved.provider.name}${runner.resolved.model ? ` (${runner.resolved.model})` : ''} ${c.dim('· /help for commands, Ctrl+D to leave')}`,
  );

  let busy = false;
  let idleInterrupts = 0;
  let exitCode = EXIT_OK;

  return new Promise<number>((resolve) => {
    rl.on('SIGINT', () => {
      if (busy) {
        if (answerInterrupted) answerInterrupted();
        runner.interrupt();
        return;
      }
      if (rl.line.length > 0) {
        rl.write(null, { ctrl: true, name: 'u' });
        idleInterrupts = 0;
        return;
      }
      if (++idleInterrupts >= 2) {
        exitCode = EXIT_CANCELLED;
        rl.close();
        return;
      }
      display.line(c.dim('\n(press Ctrl+C again, Ctrl+D or type /exit to leave)'));
      rl.prompt();
    });
    rl.on('close', () => {
      display.line('');
      // Left normally: the session ended well, whatever its last turn did (a failed turn was answered in the REPL).
      if (exitCode === EXIT_OK) runner.record.saveMetadata({ status: 'completed' });
      usage.stop();
      resolve(exitCode);
    });
    rl.on('line', (line) => {
      if (busy) {
        display.line(c.dim('(busy: wait for the answer, or press Ctrl+C to cancel)'));
        return;
      }
      idleInterrupts = 0;
      const text = line.trim();
      if (text === '') {
        rl.prompt();
        return;
      }
      busy = true;
      void handle(text)
        .catch((error: unknown) => display.error(describeError(error, display.verbose).message))
        .finally(() => {
          busy = false;
          if (!closing) rl.prompt();
        });
    });

    let closing = false;
    const handle = async (text: string): Promise<void> => {
      if (text.startsWith('/')) {
        const [command = '', ...rest] = text.split(/\s+/);
        if (command === '/exit' || command === '/quit') {
          closing = true;
          rl.close();
          return;
        }
        await slashCommand(runner, command, rest.join(' '), usage.totals);
        return;
      }
      // During the turn the terminal handles Ctrl+C itself (a real SIGINT reaches the run's handler).
      setRaw(false);
      try {
        const outcome = await runner.turn(text);
        if (outcome.status === 'completed') display.answer(outcome.answer);
        else if (outcome.status === 'cancelled') display.warn('Cancelled.');
        else display.error(describeError(outcome.error, display.verbose).message);
      } finally {
        setRaw(true);
      }
    };
    rl.prompt();
  });
}

async function slashCommand(
  runner: SessionRunner,
  command: string,
  argument: string,
  usage: UsageTotals,
): Promise<void> {
  const { display, session, record } = runner;
  const c = display.colors;
  const out = (text: string): void => display.line(text);
  switch (command) {
    case '/help':
      for (const [name, what] of COMMANDS) out(`  ${c.bold(name.padEnd(14))} ${what}`);
      out(c.dim('  Anything else is sent to the model. Ctrl+C cancels a running turn (twice: at once).'));
      return;
    case '/tools': {
      const tools = [...session.coordinator.get('tools').values()];
      if (tools.length === 0) out('No tools mounted.');
      for (const tool of tools)
        out(`  ${c.bold(tool.name.padEnd(12))} ${(tool.description.split('\n')[0] ?? '').slice(0, 100)}`);
      return;
    }
    case '/status': {
      const messages = await (
        session.coordinator.get('context') as { getMessages(): Promise<Message[]> }
      ).getMessages();
      const m = record.metadata;
      const current = currentProvider(session.coordinator, runner.resolved.provider.name);
      out(`  session   ${m.session_id}`);
      out(
        `  provider  ${current?.name ?? m.provider}, model ${current === undefined ? (m.model ?? 'unknown') : modelOf(current.provider, runner.resolved.model, usage.lastModel)}`,
      );
      out(`  cwd       ${m.cwd}`);
      out(`  turns     ${m.turn_count}, ${messages.length} messages in context`);
      out(`  tools     ${session.coordinator.get('tools').size} mounted`);
      const sandboxes = await sandboxLines(session.coordinator);
      if (sandboxes.length === 0) out('  sandbox   no subprocess tools mounted');
      for (const line of sandboxes) out(`  sandbox   ${line}`);
      out(`  stored in ${record.dir}`);
      return;
    }
    case '/clear':
      await (session.coordinator.get('context') as { clear(): Promise<void> }).clear();
      out('Conversation cleared.');
      return;
    case '/save': {
      const messages = await (
        session.coordinator.get('context') as { getMessages(): Promise<Message[]> }
      ).getMessages();
      const file = path.resolve(record.metadata.cwd, argument || `amplifier-${record.id.slice(0, 8)}.json`);
      const data = { session_id: record.id, saved: new Date().toISOString(), messages };
      fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
      out(`Saved ${messages.length} messages to ${file}`);
      return;
    }
    case '/model': {
      const current = currentProvider(session.coordinator, runner.resolved.provider.name);
      if (current === undefined) {
        out('No provider is mounted.');
        return;
      }
      if (argument !== '') {
        switchModel(session.coordinator, current.name, argument);
        record.saveMetadata({ model: argument });
        out(`Model: ${argument} (${current.name}); the next turn uses it.`);
        return;
      }
      out(
        `  model     ${modelOf(current.provider, runner.resolved.model, usage.lastModel)} (${current.name})`,
      );
      const listed = await current.provider.listModels().catch(() => []);
      if (listed.length > 0) out(`  listed    ${listed.map((model) => model.id).join(', ')}`);
      out(c.dim('  /model <name> switches the model of this provider for the next turns.'));
      return;
    }
    case '/compact': {
      const context = session.coordinator.get('context') as ContextManager;
      const current = currentProvider(session.coordinator, runner.resolved.provider.name);
      const { before, after, messages } = await compactNow(context, current?.provider);
      out(
        after < before
          ? `Compacted: ${messages[0]} → ${messages[1]} messages, about ${before} → ${after} tokens (the transcript on disk keeps every message).`
          : `Nothing to compact: the context manager kept all ${messages[0]} messages (about ${before} tokens).`,
      );
      return;
    }
    case '/agents':
      for (const line of agentLines(session.config, session.coordinator.get('tools').has('delegate')))
        out(line);
      return;
    case '/cost':
      for (const line of costLines(usage)) out(line);
      return;
    default:
      out(`Unknown command ${command}; /help lists them.`);
  }
}
