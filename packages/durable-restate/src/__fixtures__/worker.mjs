// A real worker process for the tests: serves the session object over HTTP/2
// with sessions built from a mount plan (loop-basic, context-simple,
// provider-openai against the test's fake LLM server, hooks-logging) plus one
// tool, `gate`, that asks the test's gate server for its output (so the test
// sees every run, with its idempotency key, and decides when it finishes).
// Argument: JSON { llmUrl, gateUrl, logDir, withGate = true, maxIterations? }.
// Prints one JSON line { url, port, pid } once listening.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AmplifierSession, silentLogger } from '@amplifier/core';
import { startWorker } from '@amplifier/durable-restate';

const options = JSON.parse(process.argv[2] ?? '{}');
if (options.logDir) {
  // The SDK logs through console: keep it in a file per worker, stdout is for the ready line.
  const { mkdirSync, appendFileSync } = await import('node:fs');
  mkdirSync(options.logDir, { recursive: true });
  const file = path.join(options.logDir, `worker-${process.pid}.log`);
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    console[level] = (...args) => appendFileSync(file, `${args.map(String).join(' ')}\n`);
  }
}
const baseDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const gate = {
  name: 'gate',
  description: 'Fetches its output from the gate server.',
  inputSchema: { type: 'object', properties: { step: { type: 'string' } } },
  // Touches nothing of the session's: calls of one response may run at once.
  executionProfile: { resourceKeys: () => [] },
  async execute(input, callOptions = {}) {
    const key = encodeURIComponent(callOptions.idempotencyKey ?? 'none');
    const step = encodeURIComponent(String(input.step ?? ''));
    try {
      const response = await fetch(`${options.gateUrl}/tool/${key}?step=${step}&pid=${process.pid}`, {
        signal: callOptions.signal,
      });
      return { success: true, output: await response.text() };
    } catch (error) {
      return { success: false, error: { message: `gate: ${error.message}` } };
    }
  },
};

const worker = await startWorker({
  port: options.port ?? 0,
  createSession: async ({ sessionId, isResumed }) => {
    const session = new AmplifierSession(
      {
        session: {
          orchestrator: { module: 'loop-basic', config: { max_iterations: options.maxIterations ?? 10 } },
          context: 'context-simple',
        },
        providers: [
          {
            module: 'provider-openai',
            config: {
              api_key: 'sk-test',
              base_url: `${options.llmUrl}/v1`,
              default_model: 'gpt-4o-mini',
              max_retries: 0,
            },
          },
        ],
        hooks: options.logDir
          ? [
              {
                module: 'hooks-logging',
                config: { session_log_template: `${options.logDir}/{session_id}.jsonl` },
              },
            ]
          : [],
      },
      { sessionId, isResumed, baseDir, logger: silentLogger },
    );
    await session.initialize();
    if (options.withGate !== false) session.coordinator.mount('tools', gate, { name: 'gate' });
    return session;
  },
});
process.stdout.write(`${JSON.stringify({ url: worker.url, port: worker.port, pid: process.pid })}\n`);
process.on('SIGTERM', () => {
  worker.close().then(() => process.exit(0));
});
