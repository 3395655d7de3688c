/**
 * HTTP providers: the time one request takes through a provider module over
 * a replay server on 127.0.0.1, next to the same exchange done by hand with
 * a bare undici Pool (POST the JSON, read the body, `JSON.parse` it, or read
 * the SSE stream through to its end), interleaved in one child process; the
 * ratio per round. The provider's side includes building the wire body from
 * a ChatRequest, `llm:request`/`llm:response` (no hook registered), the
 * error and retry wrapper, parsing into a ChatResponse, usage and cost.
 * Gemini (provider-gemini): `generateContent` and `streamGenerateContent`.
 * The AI SDK bridge (provider-ai-sdk): over `@ai-sdk/openai-compatible`,
 * next to the same package's model called bare (`doGenerate`, `doStream`).
 * The vendor SDK (`@google/genai` 3) needs Node 22, so the bare client is
 * the reference here (a stricter one: no SDK is faster than it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  fmt,
  type Group,
  type GroupOptions,
  meets,
  missing,
  notAvailable,
  type Row,
  runChild,
  summarize,
} from './stats.js';

const GROUP = 'providers';
const TARGET_RATIO = 1.2;

/** A Gemini answer shaped like the recordings (text, usage, model version). */
const ANSWER = {
  candidates: [
    {
      content: { role: 'model', parts: [{ text: 'The capital of France is Paris.' }] },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: {
    promptTokenCount: 15,
    candidatesTokenCount: 8,
    thoughtsTokenCount: 12,
    totalTokenCount: 35,
  },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'bench-1',
};
const CHUNKS = ['The', ' capital', ' of France', ' is', ' Paris.'].map((text, i, all) =>
  JSON.stringify({
    candidates: [
      {
        content: { role: 'model', parts: [{ text }] },
        ...(i === all.length - 1 && { finishReason: 'STOP' }),
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount: 15, candidatesTokenCount: i + 1, totalTokenCount: 16 + i },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'bench-1',
  }),
);
const JSON_BODY = JSON.stringify(ANSWER);
const SSE_BODY = CHUNKS.map((c) => `data: ${c}\r\n\r\n`).join('');

async function replayServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      if (req.url?.includes('streamGenerateContent')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(SSE_BODY);
      } else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON_BODY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Child task: ms per request through provider-gemini and by hand, streamed and not, `runs` interleaved rounds. */
async function geminiLatency(args: { runs: number; calls: number }) {
  const { createGeminiProvider } = await import('@amplifier/provider-gemini');
  const { Pool } = await import('undici');
  const server = await replayServer();
  const provider = createGeminiProvider({
    api_key: 'bench',
    base_url: server.url,
    default_model: 'gemini-2.5-flash',
  });
  const pool = new Pool(server.url, { connections: 5, pipelining: 1 });
  const request = {
    messages: [
      { role: 'system' as const, content: 'Answer briefly.' },
      { role: 'user' as const, content: 'What is the capital of France?' },
    ],
  };
  const wire = JSON.stringify({
    contents: [{ role: 'user', parts: [{ text: 'What is the capital of France?' }] }],
    systemInstruction: { parts: [{ text: 'Answer briefly.' }] },
    generationConfig: { temperature: 0.7, thinkingConfig: { includeThoughts: true } },
  });
  const bare = async (stream: boolean): Promise<unknown> => {
    const { body } = await pool.request({
      method: 'POST',
      path: `/v1beta/models/gemini-2.5-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'bench' },
      body: wire,
    });
    const text = await body.text();
    return stream
      ? text
          .split('\r\n\r\n')
          .filter(Boolean)
          .map((m) => JSON.parse(m.slice(6)))
      : JSON.parse(text);
  };
  const viaProvider = (stream: boolean) => () =>
    provider.complete(stream ? request : { ...request, metadata: { stream: false } });
  const viaBare = (stream: boolean) => () => bare(stream);
  const sample = async (call: () => Promise<unknown>): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < args.calls; i++) await call();
    return (performance.now() - start) / args.calls;
  };
  const kinds = [false, true] as const;
  for (const stream of kinds) {
    await sample(viaProvider(stream));
    await sample(viaBare(stream));
  }
  const out = {
    json: { through: [] as number[], bare: [] as number[] },
    sse: { through: [] as number[], bare: [] as number[] },
  };
  for (let r = 0; r < args.runs; r++) {
    for (const stream of kinds) {
      const into = stream ? out.sse : out.json;
      into.through.push(await sample(viaProvider(stream)));
      into.bare.push(await sample(viaBare(stream)));
    }
  }
  await provider.close();
  await pool.destroy();
  await server.close();
  return out;
}

/** A Chat Completions answer (text, usage) and its stream (5 content chunks, the finish, usage), for the AI SDK rows. */
const CHAT_JSON = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1727346161,
  model: 'bench-model',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'The capital of France is Paris.' },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 15, completion_tokens: 8, total_tokens: 23 },
});
const CHAT_SSE = [
  ...['The', ' capital', ' of France', ' is', ' Paris.'].map((content, i) => ({
    choices: [
      { index: 0, delta: i === 0 ? { role: 'assistant', content } : { content }, finish_reason: null },
    ],
  })),
  {
    choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
    usage: { prompt_tokens: 15, completion_tokens: 8, total_tokens: 23 },
  },
]
  .map(
    (chunk) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench-model', ...chunk })}\n\n`,
  )
  .join('')
  .concat('data: [DONE]\n\n');

/**
 * Child task: ms per request through provider-ai-sdk over `@ai-sdk/openai-compatible`
 * and through the same model's `doStream` / `doGenerate` called bare (the
 * stream read to its end), `runs` interleaved rounds.
 */
async function aiSdkLatency(args: { runs: number; calls: number }) {
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  const { createAiSdkProvider } = await import('@amplifier/provider-ai-sdk');
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (c: string) => {
      raw += c;
    });
    req.on('end', () => {
      if ((JSON.parse(raw) as { stream?: boolean }).stream === true)
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(CHAT_SSE);
      else res.writeHead(200, { 'content-type': 'application/json' }).end(CHAT_JSON);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const model = createOpenAICompatible({ name: 'bench', baseURL: url, apiKey: 'bench' }).chatModel(
    'bench-model',
  );
  const provider = createAiSdkProvider(model);
  const request = {
    messages: [
      { role: 'system' as const, content: 'Answer briefly.' },
      { role: 'user' as const, content: 'What is the capital of France?' },
    ],
  };
  const prompt = [
    { role: 'system' as const, content: 'Answer briefly.' },
    { role: 'user' as const, content: [{ type: 'text' as const, text: 'What is the capital of France?' }] },
  ];
  const bare = async (stream: boolean): Promise<unknown> => {
    if (!stream) return model.doGenerate({ prompt });
    const { stream: parts } = await model.doStream({ prompt });
    const seen: unknown[] = [];
    for await (const part of parts as unknown as AsyncIterable<unknown>) seen.push(part);
    return seen;
  };
  const viaProvider = (stream: boolean) => () =>
    provider.complete(stream ? request : { ...request, metadata: { stream: false } });
  const viaBare = (stream: boolean) => () => bare(stream);
  const sample = async (call: () => Promise<unknown>): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < args.calls; i++) await call();
    return (performance.now() - start) / args.calls;
  };
  const kinds = [false, true] as const;
  for (const stream of kinds) {
    await sample(viaProvider(stream));
    await sample(viaBare(stream));
  }
  const out = {
    json: { through: [] as number[], bare: [] as number[] },
    sse: { through: [] as number[], bare: [] as number[] },
  };
  for (let r = 0; r < args.runs; r++) {
    for (const stream of kinds) {
      const into = stream ? out.sse : out.json;
      into.through.push(await sample(viaProvider(stream)));
      into.bare.push(await sample(viaBare(stream)));
    }
  }
  await provider.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return out;
}

export const tasks = { geminiLatency, aiSdkLatency };

type Samples = { through: number[]; bare: number[] };

const GEMINI_NOTE = '@google/genai 3 needs Node 22, so the bare client stands in for the vendor SDK';

function ratioRow(
  what: string,
  samples: Samples,
  runs: number,
  reference = { name: 'bare undici', target: 'the bare client', note: GEMINI_NOTE },
): Row {
  const ratios = summarize(samples.through.map((x, i) => x / samples.bare[i]!));
  const t = summarize(samples.through);
  const b = summarize(samples.bare);
  return {
    group: GROUP,
    what,
    value: `${fmt(ratios.median)}×`,
    range: `${fmt(ratios.min)}–${fmt(ratios.max)}`,
    target: `≤ ${TARGET_RATIO}× (of ${reference.target})`,
    meets: meets(ratios.median, TARGET_RATIO),
    note: `median of ${runs} rounds; the provider ${fmt(t.median * 1000)} µs (${fmt(t.min * 1000)}–${fmt(t.max * 1000)}), ${reference.name} ${fmt(b.median * 1000)} µs (${fmt(b.min * 1000)}–${fmt(b.max * 1000)}) per request, 127.0.0.1 replay server in the same process; ${reference.note}`,
  };
}

/** The AI SDK bridge's rows: provider-ai-sdk over @ai-sdk/openai-compatible ÷ the same model called bare. */
async function aiSdkRows(options: GroupOptions, runs: number): Promise<Row[]> {
  const reason = await missing('@amplifier/provider-ai-sdk');
  if (reason !== undefined) return [notAvailable(GROUP, 'provider-ai-sdk', reason)];
  options.log('providers: provider-ai-sdk vs the same AI SDK model called bare over a replay server');
  const result = (
    await runChild<{ json: Samples; sse: Samples }>('child.js', [
      GROUP,
      'aiSdkLatency',
      JSON.stringify({ runs, calls: options.quick ? 200 : 1000 }),
    ])
  ).value;
  const reference = {
    name: 'the bare model',
    target: 'the model called bare',
    note: 'both through @ai-sdk/openai-compatible 2 (its fetch); the bare side calls doGenerate/doStream itself and reads the parts to the end',
  };
  return [
    ratioRow(
      'provider-ai-sdk `doGenerate` (@ai-sdk/openai-compatible) ÷ the model called bare',
      result.json,
      runs,
      reference,
    ),
    ratioRow(
      'provider-ai-sdk `doStream` (5 chunks, @ai-sdk/openai-compatible) ÷ the model called bare',
      result.sse,
      runs,
      reference,
    ),
  ];
}

async function run(options: GroupOptions): Promise<Row[]> {
  const runs = Math.max(5, options.runs);
  const aiSdk = await aiSdkRows(options, runs);
  const reason = await missing('@amplifier/provider-gemini');
  if (reason !== undefined) return [notAvailable(GROUP, 'provider-gemini', reason), ...aiSdk];
  options.log('providers: provider-gemini vs a bare undici client over a replay server');
  const result = (
    await runChild<{ json: Samples; sse: Samples }>('child.js', [
      GROUP,
      'geminiLatency',
      JSON.stringify({ runs, calls: options.quick ? 200 : 1000 }),
    ])
  ).value;
  return [
    ratioRow(
      'provider-gemini `generateContent` request over a replay server ÷ bare undici',
      result.json,
      runs,
    ),
    ratioRow(
      'provider-gemini `streamGenerateContent` (5 chunks) over a replay server ÷ bare undici',
      result.sse,
      runs,
    ),
    ...aiSdk,
  ];
}

export const group: Group = { name: GROUP, title: 'HTTP providers (per-request overhead)', run };
