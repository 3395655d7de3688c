/**
 * A child process that says when it is ready: it prints one JSON line on
 * stdout at the moment the test may act (a record half written, a server
 * listening). The test waits on that line, never on time, then kills it.
 */
import { spawn } from 'node:child_process';

export interface ReadyChild<T> {
  /** The first stdout line, parsed as JSON; rejects (with its stderr) if the child exits first. */
  readonly ready: Promise<T>;
  /** Send `signal` (default SIGKILL) and resolve with the signal the child died of. */
  kill(signal?: NodeJS.Signals): Promise<NodeJS.Signals | null>;
}

/** Start `command args` with stdout and stderr piped; see `ReadyChild`. */
export function startReadyChild<T = unknown>(command: string, args: readonly string[]): ReadyChild<T> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('close', (_code, signal) => resolve(signal)),
  );
  const ready = new Promise<T>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const end = out.indexOf('\n');
      if (end !== -1) resolve(JSON.parse(out.slice(0, end)) as T);
    });
    child.on('close', () => reject(new Error(`${command} exited before it was ready:\n${stderr}`)));
  });
  return {
    ready,
    kill(signal = 'SIGKILL') {
      child.kill(signal);
      return exited;
    },
  };
}
