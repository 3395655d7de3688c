import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, jsonLines, removeTempDirs, runCli, tempDir, writeFile } from './__fixtures__/cli.js';

afterEach(removeTempDirs);

/** A local server speaking OpenAI's Chat Completions wire format (streamed or not). */
async function chatServer(
  answer: string,
): Promise<{ url: string; bodies: Array<Record<string, unknown>>; close(): Promise<void> }> {
  const bodies: Array<Record<string, unknown>> = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      bodies.push(body);
      const base = { id: 'chatcmpl-1', created: 0, model: String(body.model) };
      const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
      if (body.stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`;
        res.write(chunk([{ index: 0, delta: { role: 'assistant', content: answer }, finish_reason: null }]));
        res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }], { usage }));
        res.end('data: [DONE]\n\n');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
            usage,
          }),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('providers', () => {
  it('OPENAI_BASE_URL alone picks provider-openai (a local server needs no key); --model reaches it', async () => {
    const server = await chatServer('hello from the local model');
    try {
      const result = await runCli(['run', '--json', '--model', 'local-model', 'hi'], {
        cwd: tempDir(),
        env: cliEnv(tempDir(), { OPENAI_BASE_URL: server.url }),
      });
      expect(result.code, result.stderr).toBe(0);
      const lines = jsonLines(result.stdout);
      expect(lines.find((l) => l.type === 'session')).toMatchObject({
        provider: 'openai',
        model: 'local-model',
      });
      expect(lines.find((l) => l.type === 'result')).toMatchObject({
        response: 'hello from the local model',
      });
      expect(server.bodies[0]?.model).toBe('local-model');
      // The default plan's tools are offered to the model.
      const offered = (server.bodies[0]?.tools ?? []) as Array<{ function: { name: string } }>;
      const tools = offered.map((t) => t.function.name);
      expect(tools).toEqual(expect.arrayContaining(['read_file', 'glob', 'grep', 'bash', 'web_fetch']));
    } finally {
      await server.close();
    }
  });

  it('--provider openai without a key or base URL says how to configure one', async () => {
    const result = await runCli(['run', '--provider', 'openai', 'hi'], {
      cwd: tempDir(),
      env: cliEnv(tempDir()),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('provider-openai: not mounted');
    expect(result.stderr).toContain(
      'No model provider is configured (provider-openai did not mount: no credentials)',
    );
    expect(result.stderr).toContain('OPENAI_BASE_URL');
    expect(result.stderr).toContain('offline demo provider');
  });

  it('--provider anthropic without ANTHROPIC_API_KEY says the same', async () => {
    const result = await runCli(['run', '--provider', 'anthropic', 'hi'], {
      cwd: tempDir(),
      env: cliEnv(tempDir()),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'No model provider is configured (provider-anthropic did not mount: no credentials)',
    );
    expect(result.stderr).toContain('ANTHROPIC_API_KEY');
  });

  it('a plan mounts provider-ai-sdk with an AI SDK package installed in the project (no --provider: it needs package and model)', async () => {
    const server = await chatServer('hello through the AI SDK');
    try {
      const cwd = tempDir();
      writeFile(path.join(cwd, 'package.json'), '{ "name": "app", "private": true }\n');
      // The project's own dependency: the real @ai-sdk/openai-compatible (a LanguageModelV3), linked in.
      const installed = realpathSync(
        fileURLToPath(
          new URL('../../../modules/provider-ai-sdk/node_modules/@ai-sdk/openai-compatible', import.meta.url),
        ),
      );
      mkdirSync(path.join(cwd, 'node_modules', '@ai-sdk'), { recursive: true });
      symlinkSync(installed, path.join(cwd, 'node_modules', '@ai-sdk', 'openai-compatible'), 'dir');
      const plan = writeFile(
        path.join(cwd, 'plan.json'),
        JSON.stringify({
          session: { orchestrator: 'loop-basic', context: 'context-simple' },
          providers: [
            {
              module: 'provider-ai-sdk',
              config: {
                package: '@ai-sdk/openai-compatible',
                options: { name: 'local' },
                base_url: server.url,
                api_key: 'k-local',
                model: 'local-model',
                name: 'local',
              },
            },
          ],
          tools: [{ module: 'tool-bash' }],
        }),
      );
      const result = await runCli(['run', '--json', '--plan', plan, 'hi'], { cwd, env: cliEnv(tempDir()) });
      expect(result.code, result.stderr).toBe(0);
      const lines = jsonLines(result.stdout);
      expect(lines.find((l) => l.type === 'result')).toMatchObject({ response: 'hello through the AI SDK' });
      expect(server.bodies[0]).toMatchObject({ model: 'local-model', stream: true });
      expect(
        (server.bodies[0]!.tools as Array<{ function: { name: string } }>).map((t) => t.function.name),
      ).toContain('bash');
    } finally {
      await server.close();
    }
  });

  it('--provider gemini: GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL (a local Gemini server) run a turn end to end', async () => {
    const requests: Array<{ url: string; key: unknown; body: Record<string, unknown> }> = [];
    const server = http.createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8').on('data', (chunk: string) => {
        raw += chunk;
      });
      req.on('end', () => {
        requests.push({ url: req.url ?? '', key: req.headers['x-goog-api-key'], body: JSON.parse(raw) });
        const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) =>
          `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, ...extra }], modelVersion: 'gemini-2.5-flash' })}\r\n\r\n`;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk([{ text: 'hello from ', thought: false }]));
        res.end(chunk([{ text: 'gemini' }], { finishReason: 'STOP' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const result = await runCli(['run', '--json', '--provider', 'gemini', 'hi'], {
        cwd: tempDir(),
        env: cliEnv(tempDir(), {
          GEMINI_API_KEY: 'gm-key',
          GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
        }),
      });
      expect(result.code, result.stderr).toBe(0);
      const lines = jsonLines(result.stdout);
      expect(lines.find((l) => l.type === 'session')).toMatchObject({ provider: 'gemini' });
      expect(lines.find((l) => l.type === 'result')).toMatchObject({ response: 'hello from gemini' });
      expect(requests[0]).toMatchObject({
        url: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
        key: 'gm-key',
      });
      const tools = (
        requests[0]!.body.tools as Array<{ functionDeclarations: Array<{ name: string }> }>
      )[0]!.functionDeclarations.map((f) => f.name);
      expect(tools).toEqual(expect.arrayContaining(['read_file', 'bash']));
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('--provider gemini without GEMINI_API_KEY says which variables to set', async () => {
    const result = await runCli(['run', '--provider', 'gemini', 'hi'], {
      cwd: tempDir(),
      env: cliEnv(tempDir()),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('provider-gemini: not mounted: no API key. Set GEMINI_API_KEY');
    expect(result.stderr).toContain(
      'No model provider is configured (provider-gemini did not mount: no credentials)',
    );
  });

  it('--provider bedrock: AWS_BEARER_TOKEN_BEDROCK and AWS_ENDPOINT_URL_BEDROCK_RUNTIME (a local server) run a turn end to end', async () => {
    // One AWS event-stream frame: lengths, prelude CRC, string headers, JSON payload, message CRC.
    const frame = (type: string, payload: unknown): Buffer => {
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
    };
    const requests: Array<{ url: string; auth: unknown; body: Record<string, unknown> }> = [];
    const server = http.createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8').on('data', (chunk: string) => {
        raw += chunk;
      });
      req.on('end', () => {
        requests.push({ url: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(raw) });
        res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
        res.end(
          Buffer.concat([
            frame('messageStart', { role: 'assistant' }),
            frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'hello from ' } }),
            frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'bedrock' } }),
            frame('contentBlockStop', { contentBlockIndex: 0 }),
            frame('messageStop', { stopReason: 'end_turn' }),
            frame('metadata', {
              usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 },
              metrics: { latencyMs: 1 },
            }),
          ]),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const nowhere = tempDir();
    try {
      const result = await runCli(['run', '--json', 'hi'], {
        cwd: tempDir(),
        env: cliEnv(tempDir(), {
          AWS_BEARER_TOKEN_BEDROCK: 'br-key',
          AWS_ENDPOINT_URL_BEDROCK_RUNTIME: `http://127.0.0.1:${port}`,
          AWS_REGION: 'us-east-1',
          AWS_CONFIG_FILE: path.join(nowhere, 'config'),
          AWS_SHARED_CREDENTIALS_FILE: path.join(nowhere, 'credentials'),
          AWS_EC2_METADATA_DISABLED: 'true',
        }),
      });
      expect(result.code, result.stderr).toBe(0);
      const lines = jsonLines(result.stdout);
      expect(lines.find((l) => l.type === 'session')).toMatchObject({ provider: 'bedrock' });
      expect(lines.find((l) => l.type === 'result')).toMatchObject({ response: 'hello from bedrock' });
      expect(requests[0]).toMatchObject({
        url: '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream',
        auth: 'Bearer br-key',
      });
      const tools = (requests[0]!.body.toolConfig as { tools: Array<{ toolSpec?: { name: string } }> }).tools;
      expect(tools.map((t) => t.toolSpec?.name)).toEqual(expect.arrayContaining(['read_file', 'bash']));
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('--provider bedrock without AWS credentials, profile or region says what to set', async () => {
    const result = await runCli(['run', '--provider', 'bedrock', 'hi'], {
      cwd: tempDir(),
      env: cliEnv(tempDir()),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'provider-bedrock: not mounted: no AWS credentials. Set AWS_BEARER_TOKEN_BEDROCK',
    );
    expect(result.stderr).toContain(
      'No model provider is configured (provider-bedrock did not mount: no credentials)',
    );
  });

  it('--provider azure: AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_API_KEY (a local Azure server) run a turn on the deployment --model names', async () => {
    const requests: Array<{ url: string; key: unknown; auth: unknown; body: Record<string, unknown> }> = [];
    // Azure's shape: a first chunk without choices (prompt filter results), filter results per chunk, no [DONE].
    const chunk = (data: Record<string, unknown>) => `data: ${JSON.stringify(data)}\n\n`;
    const base = { id: 'chatcmpl-az', object: 'chat.completion.chunk', model: 'gpt-5-nano-2025-08-07' };
    const filters = { hate: { filtered: false, severity: 'safe' } };
    const stream = [
      chunk({
        choices: [],
        id: '',
        model: '',
        prompt_filter_results: [{ prompt_index: 0, content_filter_results: filters }],
      }),
      chunk({
        ...base,
        choices: [{ index: 0, delta: { content: 'Capital of Denmark.' }, content_filter_results: filters }],
      }),
      chunk({
        ...base,
        choices: [{ index: 0, delta: {}, finish_reason: 'stop', content_filter_results: {} }],
      }),
      chunk({ ...base, choices: [], usage: { prompt_tokens: 15, completion_tokens: 5, total_tokens: 20 } }),
    ].join('');
    const server = http.createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8').on('data', (chunk: string) => {
        raw += chunk;
      });
      req.on('end', () => {
        requests.push({
          url: req.url ?? '',
          key: req.headers['api-key'],
          auth: req.headers.authorization,
          body: JSON.parse(raw),
        });
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(stream);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const result = await runCli(['run', '--json', '--provider', 'azure', '--model', 'nano-east', 'hi'], {
        cwd: tempDir(),
        env: cliEnv(tempDir(), {
          AZURE_OPENAI_ENDPOINT: `http://127.0.0.1:${port}`,
          AZURE_OPENAI_API_KEY: 'az-key',
          OPENAI_API_KEY: 'sk-not-for-azure',
        }),
      });
      expect(result.code, result.stderr).toBe(0);
      const lines = jsonLines(result.stdout);
      expect(lines.find((l) => l.type === 'session')).toMatchObject({
        provider: 'azure',
        model: 'nano-east',
      });
      expect(lines.find((l) => l.type === 'result')).toMatchObject({ response: 'Capital of Denmark.' });
      expect(requests[0]).toMatchObject({
        url: '/openai/v1/chat/completions',
        key: 'az-key',
        auth: undefined,
      });
      expect(requests[0]!.body.model).toBe('nano-east');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('--provider azure without AZURE_OPENAI_ENDPOINT says which variables to set', async () => {
    const result = await runCli(['run', '--provider', 'azure', 'hi'], {
      cwd: tempDir(),
      env: cliEnv(tempDir(), { AZURE_OPENAI_API_KEY: 'az-key' }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'provider-azure-openai: not mounted: no Azure OpenAI endpoint. Set AZURE_OPENAI_ENDPOINT',
    );
    expect(result.stderr).toContain('No model provider is configured (provider-azure-openai did not mount');
    expect(result.stderr).toContain('AZURE_OPENAI_ENDPOINT  Azure OpenAI');
  });
});
