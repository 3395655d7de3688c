/**
 * The MCP SDK `Transport` for stdio servers, over a process the process kit
 * starts (`startService`: own process group, the mount's sandbox, the secret
 * policy's environment), never the SDK's own `StdioClientTransport` (which
 * spawns by itself and signals the direct child only). Framing is the SDK's
 * (`ReadBuffer`, `serializeMessage`): a stdout line that is not JSON-RPC
 * reaches `onerror` and is skipped. stderr is the server's log: kept as a ring
 * of its last lines (for error messages) and handed to `onStderr`.
 */
import type { ExitStatus, SandboxedRun, ServiceProcess, StopServiceOptions } from '@amplifier/process';
import { startService } from '@amplifier/process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface ProcessTransportOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  sandbox?: SandboxedRun;
  /** Each stderr line, as it arrives. */
  onStderr?: (line: string) => void;
  /** How the process is stopped at `close()`. */
  stop?: StopServiceOptions;
  /** stderr lines kept for error messages (default 20). */
  stderrLines?: number;
}

export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #options: ProcessTransportOptions;
  readonly #buffer = new ReadBuffer();
  readonly #stderrTail: string[] = [];
  #partialStderr = '';
  #service: ServiceProcess | undefined;
  #closed = false;

  constructor(options: ProcessTransportOptions) {
    this.#options = options;
  }

  /** The server's process id once started. */
  get pid(): number | undefined {
    return this.#service?.pid;
  }

  /** The exit status once the server exited. */
  get exitStatus(): ExitStatus | undefined {
    return this.#service?.exitStatus;
  }

  /** The last stderr lines. */
  stderrTail(): string[] {
    return [...this.#stderrTail, ...(this.#partialStderr ? [this.#partialStderr] : [])];
  }

  async start(): Promise<void> {
    if (this.#service) throw new Error('ProcessTransport already started');
    const { command, args, cwd, env, sandbox } = this.#options;
    // A server started from a folder in /tmp (its script an argument) stays visible under the private /tmp.
    const confined = sandbox
      ? { sandbox: { ...sandbox, readable: [...(sandbox.readable ?? []), ...args] } }
      : {};
    const service = await startService(command, args, { cwd, env, ...confined });
    this.#service = service;
    service.stdout.on('data', (chunk: Buffer) => {
      try {
        this.#buffer.append(chunk);
      } catch (error) {
        this.onerror?.(error as Error); // a line over 10 MB: dropped
        return;
      }
      this.#drain();
    });
    service.stderr.on('data', (chunk: Buffer) => this.#stderr(chunk.toString('utf8')));
    service.stdout.on('error', (error) => this.onerror?.(error));
    void service.exited.then(() => {
      // stdout may still hold lines written just before the exit.
      setImmediate(() => this.#finish());
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const service = this.#service;
    if (!service || this.#closed || service.exitStatus !== undefined)
      throw new Error('MCP server is not running');
    const stdin = service.stdin;
    await new Promise<void>((resolve, reject) => {
      const ok = stdin.write(serializeMessage(message), (error) => (error ? reject(error) : undefined));
      if (ok) return resolve();
      // Back-pressure: wait for the pipe to drain, or fail when it closes (the server exited).
      const drained = (): void => {
        stdin.off('close', closed);
        resolve();
      };
      const closed = (): void => {
        stdin.off('drain', drained);
        reject(new Error('MCP server closed its stdin'));
      };
      stdin.once('drain', drained);
      stdin.once('close', closed);
    });
  }

  async close(): Promise<void> {
    const service = this.#service;
    if (service) await service.stop(this.#options.stop);
    this.#finish();
  }

  #drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        this.onerror?.(
          new Error(`MCP server wrote a line that is not JSON-RPC to stdout (skipped): ${String(error)}`),
        );
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  #stderr(text: string): void {
    const lines = (this.#partialStderr + text).split('\n');
    this.#partialStderr = lines.pop() ?? '';
    const keep = this.#options.stderrLines ?? 20;
    for (const raw of lines) {
      const line = raw.replace(/\r$/, '');
      this.#stderrTail.push(line);
      if (this.#stderrTail.length > keep) this.#stderrTail.shift();
      this.#options.onStderr?.(line);
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#buffer.clear();
    this.onclose?.();
  }
}
