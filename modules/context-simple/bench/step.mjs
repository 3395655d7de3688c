// Cost of one agent-loop step through an AmplifierSession (loop-basic + context-simple),
// next to a hand-written loop, and of context-simple's getMessagesForRequest on long
// histories. Run after a build, from the repository root:
//
//   pnpm turbo run build --filter @amplifier/context-simple --filter @amplifier/loop-basic
//   node modules/context-simple/bench/step.mjs [--quick] [--provider-mock] [--only=loop|context]
//   node --cpu-prof modules/context-simple/bench/step.mjs --repeat=simple:1:1000:50   (profile)
//
// The model is scripted and zero-latency: `steps` responses with `tools` calls of `echo`
// each, then a final text. By default it is core's MockProvider with `complete` replaced
// by an O(1) script that records nothing (MockProvider itself keeps every request and
// structuredClones each response; provider-mock copies each request's messages and checks
// each response with ajv: both would measure the mock, growing with the history).
// `--provider-mock` runs the session rows with provider-mock's `respond` instead.
// The echo tool is core's MockTool declaring that it touches no resource, so the loop runs
// the calls of one step concurrently. Times are medians over rounds taken after a
// warm-up; the cases of one round are interleaved so they see the same machine load.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { AmplifierSession } from '@amplifier/core';
import { MockProvider, MockTool } from '@amplifier/core/testing';
import * as loopBasic from '../../loop-basic/dist/index.js';
import { createMockProvider } from '../../provider-mock/dist/index.js';
import * as contextSimple from '../dist/index.js';

const args = new Set(process.argv.slice(2));
/**
 * `--also=<label>=<path of another build's index.js>` adds rows for another build of
 * context-simple (an older commit built elsewhere), measured in the same run, interleaved.
 */
const others = [];
for (const arg of args) {
  if (!arg.startsWith('--also=')) continue;
  const [label, file] = arg.slice('--also='.length).split('=');
  others.push({ label, module: await import(pathToFileURL(file).href) });
}
const quick = args.has('--quick');
const useProviderMock = args.has('--provider-mock');
const only = [...args].find((a) => a.startsWith('--only='))?.slice('--only='.length);
const out = (line = '') => process.stdout.write(`${line}\n`);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (n, digits = 2) => n.toLocaleString('en-US', { maximumFractionDigits: digits });

/**
 * A stopwatch reading wall time and this process's CPU time (user + system, all threads).
 * On a loaded shared machine the CPU time is the steadier figure: wall time also counts
 * the time the process waited for a core.
 */
function stopwatch() {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { wall: performance.now() - wall, cpu: (used.user + used.system) / 1000 };
  };
}

const PROMPT = 'Call echo until you are done, then say so.';
const FINAL = 'All done.';
const ECHO_ARGS = Object.freeze({ text: 'hello' });

/** Tool-call ids of model turn `turn`, or undefined once the script is over. */
function callsOf(turn, steps, tools) {
  if (turn >= steps) return undefined;
  const calls = [];
  for (let i = 0; i < tools; i++)
    calls.push({ id: `call_${turn}_${i}`, name: 'echo', arguments: { ...ECHO_ARGS } });
  return calls;
}

function responseOf(turn, steps, tools) {
  const calls = callsOf(turn, steps, tools);
  if (calls === undefined) return { content: [{ type: 'text', text: FINAL }], finish_reason: 'stop' };
  return { content: [], tool_calls: calls, finish_reason: 'tool_calls' };
}

/** Core's MockProvider answering from the script, O(1) per call, recording nothing; a 1M-token model. */
class ScriptedProvider extends MockProvider {
  #turn = 0;
  constructor(steps, tools) {
    super({ name: 'mock' });
    this.steps = steps;
    this.tools = tools;
  }
  getInfo() {
    return { ...super.getInfo(), defaults: { context_window: 1_000_000, max_output_tokens: 8192 } };
  }
  /** What a real provider reports for its current model (context-simple derives its budget from it). */
  getModelInfo() {
    return {
      id: 'mock-model',
      display_name: 'Mock model',
      context_window: 1_000_000,
      max_output_tokens: 8192,
    };
  }
  async complete() {
    return responseOf(this.#turn++, this.steps, this.tools);
  }
}

function providerFor(steps, tools) {
  if (!useProviderMock) return new ScriptedProvider(steps, tools);
  return createMockProvider({
    context_window: 1_000_000,
    respond: (_request, { call }) => responseOf(call - 1, steps, tools),
  });
}

/** One schema object for every session, as a module's constant would be (compiled once, then cached). */
const ECHO_SCHEMA = Object.freeze({
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
  additionalProperties: false,
});

/** The echo tool: core's MockTool with a real input schema, declaring that it touches no resource. */
function echoTool() {
  const tool = new MockTool({ name: 'echo', output: 'hello' });
  tool.inputSchema = ECHO_SCHEMA;
  tool.executionProfile = { resourceKeys: () => [] };
  return tool;
}

/** The least a context can do: one array, handed out as is (no copy, no accounting). */
class ArrayContext {
  messages = [];
  async addMessage(message) {
    this.messages.push(message);
  }
  async getMessagesForRequest() {
    return this.messages;
  }
  async getMessages() {
    return this.messages;
  }
  async setMessages(messages) {
    this.messages = messages;
  }
  async clear() {
    this.messages = [];
  }
}

/** A loader handing out the modules in this process (no resolution cost in the timed part). */
function loaderFor(provider, context) {
  const modules = {
    'loop-basic': loopBasic,
    'context-simple':
      context === 'array'
        ? { mount: (c) => c.mount('context', new ArrayContext()) }
        : context === 'simple'
          ? contextSimple
          : context,
    'bench-provider': { mount: (c) => c.mount('providers', provider, { name: 'mock' }) },
    'bench-echo': { mount: (c) => c.mount('tools', echoTool(), { name: 'echo' }) },
  };
  return {
    async load(id, config = {}) {
      const module = modules[id];
      if (module === undefined) throw new Error(`unknown module ${id}`);
      return { id, type: undefined, mount: (coordinator) => module.mount(coordinator, config) };
    },
  };
}

const PLAN = {
  session: { orchestrator: 'loop-basic', context: 'context-simple' },
  providers: [{ module: 'bench-provider' }],
  tools: [{ module: 'bench-echo' }],
};

/** One conversation through a session; returns ms spent in `execute`. */
async function sessionRun(steps, tools, context) {
  const provider = providerFor(steps, tools);
  const session = new AmplifierSession(PLAN, { loader: loaderFor(provider, context), sessionId: 'bench' });
  await session.initialize();
  const stop = stopwatch();
  const text = await session.execute(PROMPT);
  const ms = stop();
  await session.cleanup();
  if (text !== FINAL) throw new Error(`unexpected final text ${JSON.stringify(text)}`);
  return ms;
}

/** The hand-written loop: an array history, an async model, tools run concurrently. */
async function plainRun(steps, tools) {
  let turn = 0;
  const complete = async () => {
    const calls = callsOf(turn++, steps, tools);
    return calls === undefined
      ? { role: 'assistant', content: FINAL }
      : { role: 'assistant', content: '', tool_calls: calls };
  };
  const registry = new Map([['echo', { execute: async (input) => String(input.text) }]]);
  const stop = stopwatch();
  const messages = [{ role: 'user', content: PROMPT }];
  let text;
  for (;;) {
    const reply = await complete(messages);
    messages.push(reply);
    const calls = reply.tool_calls;
    if (calls === undefined || calls.length === 0) {
      text = reply.content;
      break;
    }
    const outputs = await Promise.all(calls.map((call) => registry.get(call.name).execute(call.arguments)));
    for (let i = 0; i < calls.length; i++) {
      messages.push({ role: 'tool', tool_call_id: calls[i].id, content: outputs[i] });
    }
  }
  const ms = stop();
  if (text !== FINAL) throw new Error('plain loop did not finish');
  return ms;
}

/** µs per step of one sample (wall and CPU): `conversations` runs of `steps` steps each. */
async function sample(run, steps, tools) {
  const conversations = Math.max(1, Math.round(2000 / steps));
  let wall = 0;
  let cpu = 0;
  for (let i = 0; i < conversations; i++) {
    const ms = await run(steps, tools);
    wall += ms.wall;
    cpu += ms.cpu;
  }
  const per = 1000 / (conversations * steps);
  return { wall: wall * per, cpu: cpu * per };
}

async function loopRows() {
  const systems = [
    ['hand-written loop', plainRun],
    ['loop-basic + a bare array context (session)', (s, t) => sessionRun(s, t, 'array')],
    ['loop-basic + context-simple (session)', (s, t) => sessionRun(s, t, 'simple')],
    ...others.map(({ label, module }) => [
      `loop-basic + context-simple ${label} (session)`,
      (s, t) => sessionRun(s, t, module),
    ]),
  ];
  const shapes = [
    [1, 10],
    [1, 1000],
    [8, 10],
    [8, 1000],
  ];
  const cases = [];
  for (const [name, run] of systems) {
    for (const [tools, steps] of shapes) cases.push({ name, run, tools, steps, wall: [], cpu: [] });
  }
  const rounds = quick ? 3 : 7;
  for (const c of cases) for (let w = 0; w < 2; w++) await sample(c.run, c.steps, c.tools); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) {
      const us = await sample(c.run, c.steps, c.tools);
      c.wall.push(us.wall);
      c.cpu.push(us.cpu);
    }
  }
  for (const clock of ['cpu', 'wall']) {
    const model = useProviderMock ? 'provider-mock with respond' : 'scripted MockProvider';
    out(
      `## Loop: µs per step, ${clock} time (median of ${rounds} rounds; ${model}; Node ${process.version})`,
    );
    out();
    out(
      '| system | 1 tool, 10 steps | 1 tool, 1,000 steps | growth 10→1,000 | 8 tools, 10 steps | 8 tools, 1,000 steps |',
    );
    out('|---|---:|---:|---:|---:|---:|');
    for (const [name] of systems) {
      const m = (tools, steps) =>
        median(cases.find((c) => c.name === name && c.tools === tools && c.steps === steps)[clock]);
      out(
        `| ${name} | ${fmt(m(1, 10))} | ${fmt(m(1, 1000))} | ${fmt(m(1, 1000) / m(1, 10))}× | ${fmt(m(8, 10))} | ${fmt(m(8, 1000))} |`,
      );
    }
    out();
  }
}

/** `n` messages in rounds of four (user, assistant tool call, ~400-char tool result, answer). */
function history(n) {
  const messages = [];
  for (let i = 0; messages.length < n; i++) {
    const id = `call_${i}`;
    const round = [
      {
        role: 'user',
        content: `Step ${i}: look at file src/module-${i % 97}.ts and tell me what the exported function does.`,
      },
      {
        role: 'assistant',
        content: 'Let me read it.',
        tool_calls: [{ id, tool: 'read_file', arguments: { file_path: `src/module-${i % 97}.ts` } }],
      },
      {
        role: 'tool',
        tool_call_id: id,
        content: `     1\texport function handler${i}(input: string) {\n${'     2\t  return input.trim().toLowerCase(); // normalise\n'.repeat(7)}`,
      },
      {
        role: 'assistant',
        content: `The function handler${i} trims and lowercases its input and returns it; it has no side effects and never throws.`,
      },
    ];
    for (const m of round) if (messages.length < n) messages.push(m);
  }
  return messages;
}

async function contextRows() {
  out('## context-simple getMessagesForRequest: ms per call (median)');
  out();
  out(
    '| build | messages | tokens | no compaction | compacting to half the tokens, first request | same, later requests | kept | addMessage µs/msg |',
  );
  out('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const n of quick ? [1_000, 10_000] : [1_000, 10_000, 100_000]) {
    for (const [label, module] of [['this', contextSimple], ...others.map((o) => [o.label, o.module])]) {
      await contextRow(label, module, n);
    }
  }
  out();
}

async function contextRow(label, { SimpleContextManager, estimateTokens }, n) {
  {
    const messages = history(n);
    // The first compacting request of a manager (nothing kept from earlier requests), after two
    // unrecorded ones (JIT warm-up).
    const firsts = [];
    for (let r = 0; r < (n >= 100_000 ? 7 : 13); r++) {
      const fresh = new SimpleContextManager({});
      await fresh.setMessages(messages);
      const half = Math.floor(fresh.estimatedTokens / 2);
      const start = performance.now();
      await fresh.getMessagesForRequest({ tokenBudget: half });
      if (r >= 2) firsts.push(performance.now() - start);
    }
    const tokens = messages.reduce((sum, m) => sum + estimateTokens(m), 0);
    // addMessage cost on the same history (stamps timestamps, copies, estimates).
    const adds = [];
    for (let r = 0; r < 3; r++) {
      const fresh = new SimpleContextManager({});
      const start = performance.now();
      for (const m of messages) await fresh.addMessage(m);
      adds.push(((performance.now() - start) * 1000) / n);
    }
    const context = new SimpleContextManager({});
    await context.setMessages(messages);
    const time = async (tokenBudget) => {
      const start = performance.now();
      const view = await context.getMessagesForRequest({ tokenBudget });
      return { ms: performance.now() - start, length: view.length };
    };
    const big = tokens * 10;
    const half = Math.floor(tokens / 2);
    for (let w = 0; w < 3; w++) {
      await time(big);
      await time(half);
    }
    const none = [];
    const compacting = [];
    let kept = 0;
    const calls = n >= 100_000 ? 7 : 21;
    for (let i = 0; i < calls; i++) {
      none.push((await time(big)).ms);
      const c = await time(half);
      compacting.push(c.ms);
      kept = c.length;
    }
    out(
      `| ${label} | ${fmt(n)} | ${fmt(tokens)} | ${fmt(median(none), 3)} | ${fmt(median(firsts), 2)} | ${fmt(median(compacting), 2)} | ${fmt(kept)} | ${fmt(median(adds))} |`,
    );
  }
}

// `--repeat=<simple|array>:<tools>:<steps>:<runs>` only runs conversations (for `node --cpu-prof`).
const repeat = [...args].find((a) => a.startsWith('--repeat='))?.slice('--repeat='.length);
if (repeat !== undefined) {
  const [context, tools, steps, runs] = repeat.split(':');
  for (let i = 0; i < Number(runs); i++) await sessionRun(Number(steps), Number(tools), context);
  process.exit(0);
}

if (only === undefined || only === 'loop') await loopRows();
if (only === undefined || only === 'context') await contextRows();
