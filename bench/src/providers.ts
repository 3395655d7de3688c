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
 * Azure OpenAI (provider-azure-openai): a chat completion, streamed and not,
 * against the `openai` SDK's `AzureOpenAI` client (the vendor's SDK).
 * The vendor SDK (`@google/genai` 3) needs Node 22, so the bare client is
 * the reference here (a stricter one: no SDK is faster than it).
 * Bedrock (provider-bedrock): `Converse` and `ConverseStream` (a binary
 * event stream of 5 text deltas) through the module, next to the bare AWS SDK
 * client (`@aws-sdk/client-bedrock-runtime` with its HTTP/1.1 handler,
 * SigV4 with static credentials, `maxAttempts: 1`) over the same server.
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
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      if (req.url?.endsWith('/converse-stream')) {
        res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' }).end(BEDROCK_STREAM);
      } else res.writeHead(200, { 'content-type': 'application/json' }).end(BEDROCK_JSON);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
  client.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return out;
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
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => {
      if (raw.includes('"stream":true'))
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(AZURE_SSE);
      else res.writeHead(200, { 'content-type': 'application/json' }).end(AZURE_JSON);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
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
  const viaProvider = (stream: boolean) => () =>
    provider.complete(stream ? { messages } : { messages, metadata: { stream: false } });
  const viaSdk = (stream: boolean) => async () => {
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
  const sample = async (call: () => Promise<unknown>): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < args.calls; i++) await call();
    return (performance.now() - start) / args.calls;
  };
  const kinds = [false, true] as const;
  for (const stream of kinds) {
    await sample(viaProvider(stream));
    await sample(viaSdk(stream));
  }
  const out = {
    json: { through: [] as number[], bare: [] as number[] },
    sse: { through: [] as number[], bare: [] as number[] },
  };
  for (let r = 0; r < args.runs; r++) {
    for (const stream of kinds) {
      const into = stream ? out.sse : out.json;
      into.through.push(await sample(viaProvider(stream)));
      into.bare.push(await sample(viaSdk(stream)));
    }
  }
  await provider.close();
  await new Promise((resolve) => server.close(resolve));
  return out;
}

export const tasks = { geminiLatency, bedrockLatency, aiSdkLatency, azureLatency };

type Samples = { through: number[]; bare: number[] };

const GEMINI_NOTE = '@google/genai 3 needs Node 22, so the bare client stands in for the vendor SDK';

function ratioRow(
  what: string,
  samples: Samples,
  runs: number,
  reference = 'bare undici',
  note = GEMINI_NOTE,
  target = 'of the bare client',
): Row {
  const ratios = summarize(samples.through.map((x, i) => x / samples.bare[i]!));
  const t = summarize(samples.through);
  const b = summarize(samples.bare);
  return {
    group: GROUP,
    what,
    value: `${fmt(ratios.median)}×`,
    range: `${fmt(ratios.min)}–${fmt(ratios.max)}`,
    target: `≤ ${TARGET_RATIO}× (${target})`,
    meets: meets(ratios.median, TARGET_RATIO),
    note: `median of ${runs} rounds; the provider ${fmt(t.median * 1000)} µs (${fmt(t.min * 1000)}–${fmt(t.max * 1000)}), ${reference} ${fmt(b.median * 1000)} µs (${fmt(b.min * 1000)}–${fmt(b.max * 1000)}) per request, 127.0.0.1 replay server in the same process; ${note}`,
  };
}

async function bedrockRows(options: GroupOptions, runs: number): Promise<Row[]> {
  const reason =
    (await missing('@amplifier/provider-bedrock')) ?? (await missing('@aws-sdk/client-bedrock-runtime'));
  if (reason !== undefined) return [notAvailable(GROUP, 'provider-bedrock', reason)];
  options.log('providers: provider-bedrock vs the bare AWS SDK client over a replay server');
  const result = (
    await runChild<{ json: Samples; sse: Samples }>('child.js', [
      GROUP,
      'bedrockLatency',
      JSON.stringify({ runs, calls: options.quick ? 200 : 1000 }),
    ])
  ).value;
  const note =
    'both sign with SigV4 (static credentials); the SDK with its own HTTP/1.1 handler (keep-alive), the module through the kit transport (undici)';
  return [
    ratioRow(
      'provider-bedrock `Converse` request over a replay server ÷ the bare AWS SDK client',
      result.json,
      runs,
      'bare AWS SDK',
      note,
      'of the vendor SDK',
    ),
    ratioRow(
      'provider-bedrock `ConverseStream` (5 deltas, binary event stream) over a replay server ÷ the bare AWS SDK client',
      result.sse,
      runs,
      'bare AWS SDK',
      note,
      'of the vendor SDK',
    ),
  ];
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
  const note =
    'both through @ai-sdk/openai-compatible 2 (its fetch); the bare side calls doGenerate/doStream itself and reads the parts to the end';
  return [
    ratioRow(
      'provider-ai-sdk `doGenerate` (@ai-sdk/openai-compatible) ÷ the model called bare',
      result.json,
      runs,
      'the bare model',
      note,
      'of the model called bare',
    ),
    ratioRow(
      'provider-ai-sdk `doStream` (5 chunks, @ai-sdk/openai-compatible) ÷ the model called bare',
      result.sse,
      runs,
      'the bare model',
      note,
      'of the model called bare',
    ),
  ];
}

/** provider-azure-openai (provider-openai's Azure flavour) against the vendor's SDK client. */
async function azureRows(options: GroupOptions, runs: number): Promise<Row[]> {
  const reason = (await missing('@amplifier/provider-openai')) ?? (await missing('openai'));
  if (reason !== undefined) return [notAvailable(GROUP, 'provider-azure-openai', reason)];
  options.log("providers: provider-azure-openai vs the openai SDK's AzureOpenAI client over a replay server");
  const result = (
    await runChild<{ json: Samples; sse: Samples }>('child.js', [
      GROUP,
      'azureLatency',
      JSON.stringify({ runs, calls: options.quick ? 200 : 1000 }),
    ])
  ).value;
  return [
    ratioRow(
      'provider-azure-openai chat completion over a replay server ÷ openai AzureOpenAI',
      result.json,
      runs,
      "the openai SDK's AzureOpenAI client",
      'both on the deployment URL',
      'of the vendor SDK',
    ),
    ratioRow(
      'provider-azure-openai streamed chat completion (5 chunks, filter results) ÷ openai AzureOpenAI',
      result.sse,
      runs,
      "the openai SDK's AzureOpenAI client",
      'both on the deployment URL',
      'of the vendor SDK',
    ),
  ];
}

async function run(options: GroupOptions): Promise<Row[]> {
  const runs = Math.max(5, options.runs);
  const aiSdk = await aiSdkRows(options, runs);
  const azure = await azureRows(options, runs);
  const reason = await missing('@amplifier/provider-gemini');
  if (reason !== undefined)
    return [
      notAvailable(GROUP, 'provider-gemini', reason),
      ...(await bedrockRows(options, runs)),
      ...aiSdk,
      ...azure,
    ];
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
    ...(await bedrockRows(options, runs)),
    ...aiSdk,
    ...azure,
  ];
}

export const group: Group = { name: GROUP, title: 'HTTP providers (per-request overhead)', run };
