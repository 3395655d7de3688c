/**
 * HTTP providers: the time one request takes through a provider module over
 * a replay server on 127.0.0.1, next to the same exchange through the
 * vendor's own SDK (or, where that SDK needs Node 22, done by hand on a bare
 * undici Pool), interleaved in one child process; the ratio per round. The
 * provider's side includes building the wire body from a ChatRequest,
 * `llm:request`/`llm:response` (no hook registered), the error and retry
 * wrapper, parsing into a ChatResponse, usage and cost. One task per
 * provider, whole and streamed:
 * - provider-gemini: `generateContent` and `streamGenerateContent` ÷ bare
 *   undici (`@google/genai` 3 needs Node 22);
 * - provider-openai (Responses API): `POST /responses` ÷ the `openai` SDK;
 * - provider-azure-openai: a chat completion ÷ the `openai` SDK's `AzureOpenAI`;
 * - provider-bedrock: `Converse` and `ConverseStream` (binary event stream) ÷
 *   the bare AWS SDK client (HTTP/1.1 handler, SigV4, `maxAttempts: 1`);
 * - provider-ai-sdk: over `@ai-sdk/openai-compatible` ÷ the same model's
 *   `doGenerate`/`doStream` called bare.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { crc32 } from 'node:zlib';
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

type Samples = { through: number[]; bare: number[] };

/** A 127.0.0.1 server answering every POST with what `answer(url, body)` says. */
async function replayServer(
  answer: (url: string, body: string) => { type: string; body: string | Buffer },
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      const reply = answer(req.url ?? '', body);
      res.writeHead(200, { 'content-type': reply.type }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** JSON, or SSE when `streamed`. */
const sseOr = (streamed: boolean, sse: string, json: string) =>
  streamed ? { type: 'text/event-stream', body: sse } : { type: 'application/json', body: json };

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

/** Child task: ms per request through provider-gemini and by hand, streamed and not, `runs` interleaved rounds. */
async function geminiLatency(args: { runs: number; calls: number }) {
  const { createGeminiProvider } = await import('@amplifier/provider-gemini');
  const { Pool } = await import('undici');
  const server = await replayServer((url) =>
    sseOr(url.includes('streamGenerateContent'), SSE_BODY, JSON_BODY),
  );
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
  const server = await replayServer((_url, body) =>
    sseOr(body.includes('"stream":true'), OPENAI_SSE, OPENAI_JSON),
  );
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

/** Azure OpenAI answers shaped like the recordings: filter results, a first chunk without choices, no [DONE]. */
const AZURE_FILTERS = {
  hate: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};
const AZURE_JSON = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 0,
  model: 'gpt-4o-2024-11-20',
  prompt_filter_results: [{ prompt_index: 0, content_filter_results: AZURE_FILTERS }],
  choices: [
    {
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'The capital of France is Paris.' },
      content_filter_results: AZURE_FILTERS,
    },
  ],
  usage: { prompt_tokens: 15, completion_tokens: 8, total_tokens: 23 },
});
const AZURE_SSE = [
  {
    choices: [],
    id: '',
    model: '',
    prompt_filter_results: [{ prompt_index: 0, content_filter_results: AZURE_FILTERS }],
  },
  ...['The', ' capital', ' of France', ' is', ' Paris.'].map((content) => ({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    model: 'gpt-4o-2024-11-20',
    choices: [{ index: 0, delta: { content }, finish_reason: null, content_filter_results: AZURE_FILTERS }],
  })),
  {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    model: 'gpt-4o-2024-11-20',
    choices: [{ index: 0, delta: {}, finish_reason: 'stop', content_filter_results: {} }],
  },
  {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    model: 'gpt-4o-2024-11-20',
    choices: [],
    usage: { prompt_tokens: 15, completion_tokens: 8, total_tokens: 23 },
  },
]
  .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
  .join('');

/** Child task: ms per request through provider-azure-openai and through the openai SDK's AzureOpenAI client. */
async function azureLatency(args: { runs: number; calls: number }) {
  const { createAzureOpenAIProvider } = await import('@amplifier/provider-openai');
  const { AzureOpenAI } = await import('openai');
  const server = await replayServer((_url, body) =>
    sseOr(body.includes('"stream":true'), AZURE_SSE, AZURE_JSON),
  );
  const endpoint = server.url;
  const apiVersion = '2024-10-21';
  const provider = createAzureOpenAIProvider({
    azure_endpoint: endpoint,
    api_key: 'bench',
    api_version: apiVersion,
    default_model: 'gpt-4o',
  });
  const sdk = new AzureOpenAI({ endpoint, apiKey: 'bench', apiVersion, deployment: 'gpt-4o', maxRetries: 0 });
  const messages = [
    { role: 'system' as const, content: 'Answer briefly.' },
    { role: 'user' as const, content: 'What is the capital of France?' },
  ];
  const viaSdk = async (stream: boolean): Promise<unknown> => {
    if (!stream) return sdk.chat.completions.create({ model: 'gpt-4o', messages });
    const chunks = await sdk.chat.completions.create({
      model: 'gpt-4o',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    for await (const chunk of chunks) text += chunk.choices[0]?.delta?.content ?? '';
    return text;
  };
  const out = await interleaved(
    args,
    (stream) => provider.complete(stream ? { messages } : { messages, metadata: { stream: false } }),
    viaSdk,
  );
  await provider.close();
  await server.close();
  return out;
}

/** One AWS event-stream frame (lengths, prelude CRC, string headers, JSON payload, message CRC). */
function eventFrame(type: string, payload: unknown): Buffer {
  const headers = Buffer.concat(
    Object.entries({
      ':event-type': type,
      ':content-type': 'application/json',
      ':message-type': 'event',
    }).map(([name, value]) => {
      const head = Buffer.alloc(name.length + 4);
      head.writeUInt8(name.length, 0);
      head.write(name, 1);
      head.writeUInt8(7, name.length + 1);
      head.writeUInt16BE(value.length, name.length + 2);
      return Buffer.concat([head, Buffer.from(value)]);
    }),
  );
  const body = Buffer.from(JSON.stringify(payload));
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(16 + headers.length + body.length, 0);
  prelude.writeUInt32BE(headers.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const message = Buffer.concat([prelude, headers, body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(message), 0);
  return Buffer.concat([message, crc]);
}

const BEDROCK_USAGE = { inputTokens: 15, outputTokens: 8, totalTokens: 23 };
const BEDROCK_JSON = JSON.stringify({
  output: { message: { role: 'assistant', content: [{ text: 'The capital of France is Paris.' }] } },
  stopReason: 'end_turn',
  usage: BEDROCK_USAGE,
  metrics: { latencyMs: 100 },
});
const BEDROCK_STREAM = Buffer.concat([
  eventFrame('messageStart', { role: 'assistant' }),
  ...['The', ' capital', ' of France', ' is', ' Paris.'].map((text) =>
    eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text } }),
  ),
  eventFrame('contentBlockStop', { contentBlockIndex: 0 }),
  eventFrame('messageStop', { stopReason: 'end_turn' }),
  eventFrame('metadata', { usage: BEDROCK_USAGE, metrics: { latencyMs: 100 } }),
]);

/** Child task: ms per request through provider-bedrock and through the bare AWS SDK client, `runs` interleaved rounds. */
async function bedrockLatency(args: { runs: number; calls: number }) {
  const { createBedrockProvider } = await import('@amplifier/provider-bedrock');
  const { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } = await import(
    '@aws-sdk/client-bedrock-runtime'
  );
  const { NodeHttpHandler } = await import('@smithy/node-http-handler');
  for (const name of Object.keys(process.env)) if (name.startsWith('AWS_')) delete process.env[name];
  process.env.AWS_ACCESS_KEY_ID = 'AKIDBENCH';
  process.env.AWS_SECRET_ACCESS_KEY = 'bench-secret';
  process.env.AWS_CONFIG_FILE = '/nonexistent/aws-config';
  process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/aws-credentials';
  const server = await replayServer((url) =>
    url.endsWith('/converse-stream')
      ? { type: 'application/vnd.amazon.eventstream', body: BEDROCK_STREAM }
      : { type: 'application/json', body: BEDROCK_JSON },
  );
  const url = server.url;
  const model = 'amazon.nova-micro-v1:0';
  const provider = createBedrockProvider({
    base_url: url,
    aws_region: 'us-east-1',
    default_model: model,
    use_cross_region_inference: false,
  });
  const client = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: url,
    maxAttempts: 1,
    credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench-secret' },
    requestHandler: new NodeHttpHandler({ httpAgent: new http.Agent({ keepAlive: true, maxSockets: 5 }) }),
  });
  const request = {
    messages: [
      { role: 'system' as const, content: 'Answer briefly.' },
      { role: 'user' as const, content: 'What is the capital of France?' },
    ],
  };
  const input = {
    modelId: model,
    system: [{ text: 'Answer briefly.' }, { cachePoint: { type: 'default' as const } }],
    messages: [
      {
        role: 'user' as const,
        content: [{ text: 'What is the capital of France?' }, { cachePoint: { type: 'default' as const } }],
      },
    ],
    inferenceConfig: { maxTokens: 8192 },
  };
  const bare = async (stream: boolean): Promise<unknown> => {
    if (!stream) return client.send(new ConverseCommand(input));
    const output = await client.send(new ConverseStreamCommand(input));
    let text = '';
    for await (const event of output.stream ?? []) text += event.contentBlockDelta?.delta?.text ?? '';
    return text;
  };
  const out = await interleaved(
    args,
    (stream) => provider.complete(stream ? request : { ...request, metadata: { stream: false } }),
    bare,
  );
  await provider.close();
  client.destroy();
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
  const server = await replayServer((_url, body) =>
    sseOr((JSON.parse(body) as { stream?: boolean }).stream === true, CHAT_SSE, CHAT_JSON),
  );
  const url = `${server.url}/v1`;
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
  const out = await interleaved(
    args,
    (stream) => provider.complete(stream ? request : { ...request, metadata: { stream: false } }),
    bare,
  );
  await provider.close();
  await server.close();
  return out;
}

export const tasks = { geminiLatency, openaiResponsesLatency, azureLatency, bedrockLatency, aiSdkLatency };

function ratioRow(what: string, samples: Samples, runs: number, reference: string, note = ''): Row {
  const ratios = summarize(samples.through.map((x, i) => x / samples.bare[i]!));
  const t = summarize(samples.through);
  const b = summarize(samples.bare);
  return {
    group: GROUP,
    what,
    value: `${fmt(ratios.median)}×`,
    range: `${fmt(ratios.min)}–${fmt(ratios.max)}`,
    target: `≤ ${TARGET_RATIO}× (of ${reference})`,
    meets: meets(ratios.median, TARGET_RATIO),
    note: `median of ${runs} rounds; the provider ${fmt(t.median * 1000)} µs (${fmt(t.min * 1000)}–${fmt(t.max * 1000)}), ${reference} ${fmt(b.median * 1000)} µs (${fmt(b.min * 1000)}–${fmt(b.max * 1000)}) per request, 127.0.0.1 replay server in the same process${note}`,
  };
}

/** One provider's rows: its task in a child process, whole then streamed. */
interface ProviderBench {
  name: string;
  task: keyof typeof tasks;
  /** Packages the task imports (a missing one makes the row "not available"). */
  needs: string[];
  rows: [whole: string, streamed: string];
  reference: string;
  note?: string;
}

const BENCHES: ProviderBench[] = [
  {
    name: 'provider-gemini',
    task: 'geminiLatency',
    needs: ['@amplifier/provider-gemini', 'undici'],
    rows: [
      'provider-gemini `generateContent` request over a replay server ÷ bare undici',
      'provider-gemini `streamGenerateContent` (5 chunks) over a replay server ÷ bare undici',
    ],
    reference: 'bare undici',
    note: '; @google/genai 3 needs Node 22, so the bare client stands in for the vendor SDK',
  },
  {
    name: 'provider-openai (Responses)',
    task: 'openaiResponsesLatency',
    needs: ['@amplifier/provider-openai', 'openai'],
    rows: [
      'provider-openai `POST /responses` over a replay server ÷ the openai SDK',
      'provider-openai `POST /responses` streamed (5 text deltas) over a replay server ÷ the openai SDK',
    ],
    reference: 'the openai SDK (`client.responses.create`)',
  },
  {
    name: 'provider-azure-openai',
    task: 'azureLatency',
    needs: ['@amplifier/provider-openai', 'openai'],
    rows: [
      'provider-azure-openai chat completion over a replay server ÷ openai AzureOpenAI',
      'provider-azure-openai streamed chat completion (5 chunks, filter results) ÷ openai AzureOpenAI',
    ],
    reference: "the openai SDK's AzureOpenAI client",
    note: '; both on the deployment URL',
  },
  {
    name: 'provider-bedrock',
    task: 'bedrockLatency',
    needs: ['@amplifier/provider-bedrock', '@aws-sdk/client-bedrock-runtime'],
    rows: [
      'provider-bedrock `Converse` request over a replay server ÷ the bare AWS SDK client',
      'provider-bedrock `ConverseStream` (5 deltas, binary event stream) over a replay server ÷ the bare AWS SDK client',
    ],
    reference: 'the bare AWS SDK client',
    note: '; both sign with SigV4 (static credentials); the SDK with its own HTTP/1.1 handler (keep-alive), the module through the kit transport (undici)',
  },
  {
    name: 'provider-ai-sdk',
    task: 'aiSdkLatency',
    needs: ['@amplifier/provider-ai-sdk', '@ai-sdk/openai-compatible'],
    rows: [
      'provider-ai-sdk `doGenerate` (@ai-sdk/openai-compatible) ÷ the model called bare',
      'provider-ai-sdk `doStream` (5 chunks, @ai-sdk/openai-compatible) ÷ the model called bare',
    ],
    reference: 'the model called bare',
    note: '; both through @ai-sdk/openai-compatible 2 (its fetch); the bare side reads the parts to the end',
  },
];

async function run(options: GroupOptions): Promise<Row[]> {
  const runs = Math.max(5, options.runs);
  const rows: Row[] = [];
  for (const bench of BENCHES) {
    let reason: string | undefined;
    for (const name of bench.needs) reason ??= await missing(name);
    if (reason !== undefined) {
      rows.push(notAvailable(GROUP, bench.name, reason));
      continue;
    }
    options.log(`providers: ${bench.name} vs ${bench.reference} over a replay server`);
    const { json, sse } = (
      await runChild<{ json: Samples; sse: Samples }>('child.js', [
        GROUP,
        bench.task,
        JSON.stringify({ runs, calls: options.quick ? 200 : 1000 }),
      ])
    ).value;
    rows.push(
      ratioRow(bench.rows[0], json, runs, bench.reference, bench.note),
      ratioRow(bench.rows[1], sse, runs, bench.reference, bench.note),
    );
  }
  return rows;
}

export const group: Group = { name: GROUP, title: 'HTTP providers (per-request overhead)', run };
