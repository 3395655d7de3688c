/**
 * A second vendor package, `@ai-sdk/mistral` (3.x, a LanguageModelV3), pointed
 * at a local server: Mistral's chat API streams Chat Completions chunks, so
 * the recorded gpt-4o text and tool-call streams (`__fixtures__/recorded/`)
 * stand in for its wire; the request the package sends is Mistral's.
 */
import { readFileSync } from 'node:fs';
import { createMistral } from '@ai-sdk/mistral';
import { FakeLlmServer, reply } from '@amplifier/provider-http/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAiSdkProvider } from './index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');

/**
 * A recorded OpenAI stream in Mistral's shape: Mistral sends usage on the
 * chunk with the finish reason, never a `choices: []` chunk (which
 * @ai-sdk/mistral 3 cannot read: see the last test).
 */
function asMistral(sse: string): string {
  const messages = sse.split(/(?<=\n\n)/);
  const out: string[] = [];
  for (const message of messages) {
    const data = message.replace(/^data: /, '').trim();
    const chunk = data === '[DONE]' ? undefined : (JSON.parse(data) as Record<string, unknown>);
    if (chunk !== undefined && Array.isArray(chunk.choices) && chunk.choices.length === 0) {
      const previous = JSON.parse(out.pop()!.replace(/^data: /, '')) as Record<string, unknown>;
      out.push(`data: ${JSON.stringify({ ...previous, usage: chunk.usage })}\n\n`);
    } else out.push(message);
  }
  return out.join('');
}

let server: FakeLlmServer;
beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(() => server.close());

const mistral = () =>
  createAiSdkProvider(
    createMistral({ apiKey: 'ms-test', baseURL: `${server.url}/v1` })('mistral-large-latest'),
    { provider_options: { mistral: { safePrompt: true } }, max_tokens: 300 },
  );

describe('@ai-sdk/mistral through the bridge', () => {
  it('streams a text answer; the request is Mistral chat with the provider options applied', async () => {
    server.enqueue(reply.sse([asMistral(fixture('openai-stream-text.sse'))]));
    const response = await mistral().complete({
      messages: [
        { role: 'system', content: 'Answer in JSON.' },
        { role: 'user', content: 'Weather?' },
      ],
    });
    expect(response.content[0]).toMatchObject({ type: 'text' });
    expect(response.finish_reason).toBe('stop');
    const sent = server.requests[0]!;
    expect(sent.url).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer ms-test');
    expect(sent.body).toMatchObject({
      model: 'mistral-large-latest',
      stream: true,
      safe_prompt: true,
      max_tokens: 300,
      messages: [
        { role: 'system', content: 'Answer in JSON.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      ],
    });
  });

  it('streams a tool call and sends its result back on the next turn', async () => {
    server.enqueue(
      reply.sse([asMistral(fixture('openai-stream-tool-call.sse'))]),
      reply.sse([asMistral(fixture('openai-stream-text.sse'))]),
    );
    const bridge = mistral();
    const tools = [
      { name: 'GetWeatherArgs', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    ];
    const first = await bridge.complete({
      messages: [{ role: 'user', content: 'Weather in Edinburgh?' }],
      tools,
    });
    const call = first.tool_calls?.[0];
    expect(call).toMatchObject({ name: 'GetWeatherArgs', arguments: { city: 'Edinburgh' } });
    await bridge.complete({
      tools,
      messages: [
        { role: 'user', content: 'Weather in Edinburgh?' },
        {
          role: 'assistant',
          content: first.content,
          tool_calls: [{ id: call!.id, tool: call!.name, arguments: call!.arguments }],
          ...(first.metadata && { metadata: first.metadata }),
        },
        { role: 'tool', tool_call_id: call!.id, content: '12°C, rain' },
      ],
    });
    const messages = server.requests[1]!.body.messages as Record<string, unknown>[];
    expect(messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: call!.id, name: 'GetWeatherArgs' });
    expect(JSON.stringify(messages.at(-1))).toContain('12°C, rain');
  });

  it('a chunk the package cannot read ends the call with a stream error, not an unknown one', async () => {
    // OpenAI's usage-only chunk (`choices: []`) makes @ai-sdk/mistral 3 throw inside its stream.
    server.enqueue(reply.sse([fixture('openai-stream-text.sse')]));
    const error = await mistral()
      .complete({ messages: [{ role: 'user', content: 'Hi' }], max_output_tokens: 5 }, {})
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'stream' });
    expect((error as Error).message).toContain('the stream failed');
  });
});
