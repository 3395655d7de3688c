/**
 * HTTP providers: the time one request takes through a provider module over
 * a replay server on 127.0.0.1, next to the same exchange done by hand with
 * a bare undici Pool (POST the JSON, read the body, `JSON.parse` it, or read
 * the SSE stream through to its end), interleaved in one child process; the
 * ratio per round. The provider's side includes building the wire body from
 * a ChatRequest, `llm:request`/`llm:response` (no hook registered), the
 * error and retry wrapper, parsing into a ChatResponse, usage and cost.
 * Gemini (provider-gemini): `generateContent` and `streamGenerateContent`.
 * The vendor SDK (`@google/genai` 3) needs Node 22, so the bare client is
 * the reference here (a stricter one: no SDK is faster than it).
 * OpenAI Responses (provider-openai, `api: "responses"`): `POST /responses`
 * whole and streamed, next to the vendor's SDK (`openai` 6,
 * `client.responses.create`, the stream's events iterated to the end) over
 * the same replay server in the same process.
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

/**
 * A 127.0.0.1 server answering every POST with `sse` when `streamed(url, body)`
 * says the request asked for a stream, else with `json`.
 */
async function replayServer(
  streamed: (url: string, body: string) => boolean,
  sse: string,
  json: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      if (streamed(req.url ?? '', body)) res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sse);
      else res.writeHead(200, { 'content-type': 'application/json' }).end(json);
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
  const server = await replayServer((url) => url.includes('streamGenerateContent'), SSE_BODY, JSON_BODY);
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
  const out = await interleaved(
    args,
    (stream) => provider.complete(stream ? request : { ...request, metadata: { stream: false } }),
    bare,
  );
  await provider.close();
  await pool.destroy();
  await server.close();
  return out;
}

type Samples = { through: number[]; bare: number[] };

/**
 * ms per call through the provider and through the reference, whole (`false`)
 * and streamed (`true`): one warm-up sample each, then `runs` rounds, each
 * taking a sample of `calls` calls of every side and kind in turn.
 */
async function interleaved(
  args: { runs: number; calls: number },
  through: (stream: boolean) => Promise<unknown>,
  reference: (stream: boolean) => Promise<unknown>,
): Promise<{ json: Samples; sse: Samples }> {
  const sample = async (call: () => Promise<unknown>): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < args.calls; i++) await call();
    return (performance.now() - start) / args.calls;
  };
  const kinds = [false, true] as const;
  for (const stream of kinds) {
    await sample(() => through(stream));
    await sample(() => reference(stream));
  }
  const out = { json: { through: [], bare: [] } as Samples, sse: { through: [], bare: [] } as Samples };
  for (let r = 0; r < args.runs; r++) {
    for (const stream of kinds) {
      const into = stream ? out.sse : out.json;
      into.through.push(await sample(() => through(stream)));
      into.bare.push(await sample(() => reference(stream)));
    }
  }
  return out;
}

/** A Responses API answer shaped like the recordings: a message item, usage with cached and reasoning tokens. */
const OPENAI_ITEM = {
  id: 'msg_bench',
  type: 'message',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'The capital of France is Paris.' }],
};
const OPENAI_USAGE = {
  input_tokens: 15,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 20,
  output_tokens_details: { reasoning_tokens: 12 },
  total_tokens: 35,
};
const OPENAI_RESPONSE = {
  id: 'resp_bench',
  object: 'response',
  created_at: 1765591383,
  status: 'completed',
  error: null,
  incomplete_details: null,
  model: 'gpt-5-mini-2025-08-07',
  output: [OPENAI_ITEM],
  store: false,
  usage: OPENAI_USAGE,
};
const OPENAI_JSON = JSON.stringify(OPENAI_RESPONSE);
const OPENAI_SSE = [
  {
    type: 'response.created',
    response: { ...OPENAI_RESPONSE, status: 'in_progress', output: [], usage: null },
  },
  {
    type: 'response.output_item.added',
    output_index: 0,
    item: { ...OPENAI_ITEM, status: 'in_progress', content: [] },
  },
  ...['The', ' capital', ' of France', ' is', ' Paris.'].map((delta) => ({
    type: 'response.output_text.delta',
    item_id: 'msg_bench',
    output_index: 0,
    content_index: 0,
    delta,
  })),
  { type: 'response.output_item.done', output_index: 0, item: OPENAI_ITEM },
  { type: 'response.completed', response: OPENAI_RESPONSE },
]
  .map((event, i) => `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: i })}\n\n`)
  .join('');

/** Child task: ms per request through provider-openai (Responses) and the `openai` SDK, streamed and not, interleaved. */
async function openaiResponsesLatency(args: { runs: number; calls: number }) {
  const { createOpenAIProvider } = await import('@amplifier/provider-openai');
  const { default: OpenAI } = await import('openai');
  const server = await replayServer((_url, body) => body.includes('"stream":true'), OPENAI_SSE, OPENAI_JSON);
  const provider = createOpenAIProvider({
    api: 'responses',
    api_key: 'bench',
    base_url: `${server.url}/v1`,
    default_model: 'gpt-5-mini',
  });
  const client = new OpenAI({ apiKey: 'bench', baseURL: `${server.url}/v1`, maxRetries: 0 });
  const request = {
    messages: [
      { role: 'system' as const, content: 'Answer briefly.' },
      { role: 'user' as const, content: 'What is the capital of France?' },
    ],
  };
  const params = {
    model: 'gpt-5-mini',
    instructions: 'Answer briefly.',
    input: [{ role: 'user' as const, content: 'What is the capital of France?' }],
    store: false,
    include: ['reasoning.encrypted_content' as const],
  };
  const viaSdk = async (stream: boolean): Promise<unknown> => {
    if (!stream) return client.responses.create(params);
    const events = await client.responses.create({ ...params, stream: true });
    let last: unknown;
    for await (const event of events) last = event;
    return last;
  };
  const out = await interleaved(
    args,
    (stream) => provider.complete(stream ? request : { ...request, metadata: { stream: false } }),
    viaSdk,
  );
  await provider.close();
  await server.close();
  return out;
}

export const tasks = { geminiLatency, openaiResponsesLatency };

function ratioRow(what: string, samples: Samples, runs: number, reference?: string): Row {
  const ratios = summarize(samples.through.map((x, i) => x / samples.bare[i]!));
  const t = summarize(samples.through);
  const b = summarize(samples.bare);
  return {
    group: GROUP,
    what,
    value: `${fmt(ratios.median)}×`,
    range: `${fmt(ratios.min)}–${fmt(ratios.max)}`,
    target: `≤ ${TARGET_RATIO}× (of ${reference === undefined ? 'the bare client' : 'the vendor SDK'})`,
    meets: meets(ratios.median, TARGET_RATIO),
    note:
      reference !== undefined
        ? `median of ${runs} rounds; the provider ${fmt(t.median * 1000)} µs (${fmt(t.min * 1000)}–${fmt(t.max * 1000)}), ${reference} ${fmt(b.median * 1000)} µs (${fmt(b.min * 1000)}–${fmt(b.max * 1000)}) per request, 127.0.0.1 replay server in the same process`
        : `median of ${runs} rounds; the provider ${fmt(t.median * 1000)} µs (${fmt(t.min * 1000)}–${fmt(t.max * 1000)}), bare undici ${fmt(b.median * 1000)} µs (${fmt(b.min * 1000)}–${fmt(b.max * 1000)}) per request, 127.0.0.1 replay server in the same process; @google/genai 3 needs Node 22, so the bare client stands in for the vendor SDK`,
  };
}

async function run(options: GroupOptions): Promise<Row[]> {
  const runs = Math.max(5, options.runs);
  return [...(await geminiRows(options, runs)), ...(await openaiRows(options, runs))];
}

async function openaiRows(options: GroupOptions, runs: number): Promise<Row[]> {
  const reason = (await missing('@amplifier/provider-openai')) ?? (await missing('openai'));
  if (reason !== undefined) return [notAvailable(GROUP, 'provider-openai (Responses)', reason)];
  options.log('providers: provider-openai (Responses API) vs the openai SDK over a replay server');
  const result = (
    await runChild<{ json: Samples; sse: Samples }>('child.js', [
      GROUP,
      'openaiResponsesLatency',
      JSON.stringify({ runs, calls: options.quick ? 200 : 1000 }),
    ])
  ).value;
  const sdk = 'the openai SDK 6 (`client.responses.create`)';
  return [
    ratioRow(
      'provider-openai `POST /responses` over a replay server ÷ the openai SDK',
      result.json,
      runs,
      sdk,
    ),
    ratioRow(
      'provider-openai `POST /responses` streamed (5 text deltas) over a replay server ÷ the openai SDK',
      result.sse,
      runs,
      sdk,
    ),
  ];
}

async function geminiRows(options: GroupOptions, runs: number): Promise<Row[]> {
  const reason = await missing('@amplifier/provider-gemini');
  if (reason !== undefined) return [notAvailable(GROUP, 'provider-gemini', reason)];
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
  ];
}

export const group: Group = { name: GROUP, title: 'HTTP providers (per-request overhead)', run };
