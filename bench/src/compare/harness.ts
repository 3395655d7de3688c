/**
 * One build's cost per step, run from inside that build's checkout (see
 * `builds.ts`): `AmplifierSession` with loop-basic + context-simple (and
 * hooks-logging for the `log` modes), the bench's scripted zero-latency model
 * and its echo tool without an execution profile, as issue 23 measured. Warms
 * up, then prints one JSON line: the median µs/step of `rounds` conversations.
 *
 * Arguments: tools per step, steps, mode (`window`: the provider reports a
 * context window; `budget`: it reports none, so context-simple uses its
 * 200k-token default and compacts; `log` / `log-budget`: the same with
 * hooks-logging), conversations measured.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AmplifierSession, type MountPlan } from '@amplifier/core';
import { PROMPT, Script } from '../adapters/scenario.js';
import { SCRIPT_CAPABILITY } from '../modules/scripted-provider.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.resolve(here, '..', 'modules');
/** The checkout's `bench` folder: its package.json declares the modules the loader finds. */
const baseDir = process.env.COMPARE_BASE_DIR ?? process.cwd();

const [tools, steps, mode, rounds] = [
  Number(process.argv[2]),
  Number(process.argv[3]),
  process.argv[4] ?? 'window',
  Number(process.argv[5] ?? 9),
];
const logging = mode === 'log' || mode === 'log-budget';
const budget = mode === 'budget' || mode === 'log-budget';
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'amp-compare-'));
process.on('exit', () => fs.rmSync(logDir, { recursive: true, force: true }));

const plan: MountPlan = {
  session: { orchestrator: 'loop-basic', context: 'context-simple' },
  providers: [
    {
      module: 'bench-scripted-provider',
      source: path.join(modules, 'scripted-provider.js'),
      ...(budget && { config: { limits: false } }),
    },
  ],
  tools: [
    { module: 'bench-echo-tool', source: path.join(modules, 'echo-tool.js'), config: { profile: false } },
  ],
  hooks: logging
    ? [
        {
          module: 'hooks-logging',
          config: { session_log_template: path.join(logDir, '{session_id}', 'events.jsonl') },
        },
      ]
    : [],
};

async function conversation(n: number): Promise<number> {
  const session = new AmplifierSession(plan, { baseDir });
  const script = new Script(n, tools);
  session.coordinator.registerCapability(SCRIPT_CAPABILITY, script);
  await session.initialize();
  if (session.failures.length > 0)
    throw new Error(`modules failed to load: ${JSON.stringify(session.failures)}`);
  const start = performance.now();
  const text = await session.execute(PROMPT);
  const elapsed = performance.now() - start;
  script.check(text);
  await session.cleanup();
  return (elapsed * 1000) / n;
}

// The JIT needs a few thousand steps before a step's cost settles.
for (let i = 0; i < (steps > 1_000 ? 3 : 6); i++) await conversation(Math.min(steps, 1_000));
const samples: number[] = [];
for (let r = 0; r < rounds; r++) samples.push(await conversation(steps));
const sorted = [...samples].sort((a, b) => a - b);
console.log(JSON.stringify({ median: sorted[sorted.length >> 1], samples }));
