/**
 * A durable worker process for the `durable` group: the headline plan
 * (loop-basic, context-simple, the scripted provider, the echo tool) served
 * as Restate session objects. A session id `<label>-<steps>-<n>` gets a
 * script of `steps` one-tool steps. Prints `{ url }` once listening; runs
 * until killed.
 */
import { AmplifierSession, ModuleLoader, silentLogger } from '@amplifier/core';
import { startWorker } from '@amplifier/durable-restate';
import { BENCH_DIR, headlinePlan } from './adapters/amplifier.js';
import { Script } from './adapters/scenario.js';
import { SCRIPT_CAPABILITY } from './modules/scripted-provider.js';

const plan = headlinePlan();
const loader = new ModuleLoader({ baseDir: BENCH_DIR, logger: silentLogger });
// The SDK's start-up notices would mix with the ready line.
console.warn = () => {};
console.info = () => {};

const worker = await startWorker({
  createSession: ({ sessionId, isResumed }) => {
    const steps = Number(sessionId.split('-')[1] ?? '1');
    const session = new AmplifierSession(plan, {
      loader,
      logger: silentLogger,
      baseDir: BENCH_DIR,
      sessionId,
      isResumed,
    });
    session.coordinator.registerCapability(SCRIPT_CAPABILITY, new Script(steps, 1));
    return session;
  },
});
process.stdout.write(`${JSON.stringify({ url: worker.url })}\n`);
