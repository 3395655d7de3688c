/**
 * The ids of Amplifier's OpenAI-family modules resolve to this package
 * through its manifest's aliases (the real loader, from this folder):
 * `provider-chat-completions`, `provider-vllm` and `provider-ollama` mount
 * provider-openai in Chat Completions mode (vLLM and Ollama at their usual
 * local addresses, a plan's own `base_url` winning); `provider-openai` itself
 * speaks the Responses API to api.openai.com. The mounted provider sends its
 * session id as the Responses `prompt_cache_key`.
 */
import { fileURLToPath } from 'node:url';
import { ModuleLoader, silentLogger } from '@amplifier/core';
import { FakeLlmServer, reply, sseEvent } from '@amplifier/provider-http/testing';
import { createTestCoordinator } from '@amplifier/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { completion } from './__fixtures__/wire.js';
import type { OpenAIProvider } from './provider.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

async function mountAs(id: string, config: Record<string, unknown>, env: Record<string, string> = {}) {
  const loader = new ModuleLoader({ baseDir: PACKAGE_DIR, searchPaths: [PACKAGE_DIR], logger: silentLogger });
  const loaded = await loader.load(id, config, { type: 'provider' });
  const coordinator = createTestCoordinator({ bare: true });
  const saved = { ...process.env };
  Object.assign(process.env, { OPENAI_API_KEY: '', OPENAI_BASE_URL: '', ...env });
  for (const key of ['OPENAI_API_KEY', 'OPENAI_BASE_URL'])
    if (process.env[key] === '') delete process.env[key];
  try {
    await loaded.mount(coordinator);
  } finally {
    process.env = saved;
  }
  const provider = coordinator.get('providers', 'openai') as OpenAIProvider | undefined;
  return { loaded, provider, coordinator };
}

let server: FakeLlmServer;
beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(() => server.close());

describe("Amplifier's OpenAI-family module ids", () => {
  it.each([
    ['provider-vllm', 'http://localhost:8000/v1'],
    ['provider-ollama', 'http://localhost:11434/v1'],
  ])('%s: Chat Completions at the usual local address, mounted without a key', async (id, url) => {
    const { loaded, provider } = await mountAs(id, {});
    expect(loaded).toMatchObject({ id, aliasOf: 'provider-openai' });
    expect(provider?.config.api).toBe('chat');
    expect(provider?.config.baseUrl.href).toBe(url);
    await provider?.close();
  });

  it("a plan's base_url wins over the alias default; requests go to /chat/completions", async () => {
    server.enqueue(reply.json(200, completion({ content: 'Hi from Ollama.' })));
    const { provider } = await mountAs('provider-ollama', {
      base_url: `${server.url}/v1`,
      default_model: 'llama3.2:3b',
      use_streaming: false,
    });
    const response = await provider!.complete({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(response.content).toEqual([{ type: 'text', text: 'Hi from Ollama.' }]);
    expect(server.requests[0]).toMatchObject({ url: '/v1/chat/completions', body: { model: 'llama3.2:3b' } });
    await provider!.close();
  });

  it('provider-chat-completions: Chat Completions even for api.openai.com; the plan can still choose', async () => {
    const chat = await mountAs('provider-chat-completions', {}, { OPENAI_API_KEY: 'sk-test' });
    expect(chat.loaded.aliasOf).toBe('provider-openai');
    expect(chat.provider?.config).toMatchObject({
      api: 'chat',
      baseUrl: new URL('https://api.openai.com/v1'),
    });
    await chat.provider?.close();
    const own = await mountAs('provider-openai', {}, { OPENAI_API_KEY: 'sk-test' });
    expect(own.provider?.config.api).toBe('responses');
    await own.provider?.close();
  });

  it("the mounted provider's Responses requests carry the session id as prompt_cache_key", async () => {
    server.enqueue(
      reply.sse([
        sseEvent({ type: 'response.created', response: { id: 'resp_1', status: 'in_progress' } }),
        sseEvent({ type: 'response.completed', response: { id: 'resp_1', status: 'completed', output: [] } }),
      ]),
    );
    const { provider, coordinator } = await mountAs('provider-openai', {
      api: 'responses',
      base_url: `${server.url}/v1`,
    });
    await provider!.complete({ messages: [{ role: 'user', content: 'Hi' }] });
    expect(server.requests[0]!.body).toMatchObject({ prompt_cache_key: coordinator.sessionId });
    await provider!.close();
  });
});
