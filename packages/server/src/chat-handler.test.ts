/**
 * A turn over HTTP, read by the AI SDK's own client (`ai`'s
 * `DefaultChatTransport` and `readUIMessageStream`, what `useChat` runs) from
 * a real `node:http` server on 127.0.0.1: the assembled message, failures,
 * denials, resumption after a dropped connection, and hostile requests.
 * No timing: every wait is on an event or a promise.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AmplifierSession } from '@amplifier/core';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedResponse, streamingSession } from './__fixtures__/streaming.js';
import { type ChatHandlerOptions, createChatHandler, toNodeListener } from './chat-handler.js';
import { StreamBuffers } from './sse.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A chat server whose every chat runs on one streaming session; its base URL. */
async function serve(
  session: AmplifierSession,
  options: Partial<ChatHandlerOptions> = {},
): Promise<{ api: string }> {
  const handler = createChatHandler({ session: () => session, ...options });
  const server = http.createServer(toNodeListener(handler));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { api: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/chat` };
}

const userMessage = (text: string): UIMessage => ({
  id: 'u1',
  role: 'user',
  parts: [{ type: 'text', text }],
});

/** Send one message with the AI SDK's transport; the last assembled message. */
async function chat(api: string, text: string, chatId = 'chat-1'): Promise<UIMessage | undefined> {
  const transport = new DefaultChatTransport({ api });
  const stream = await transport.sendMessages({
    chatId,
    messages: [userMessage(text)],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream, terminateOnError: true })) last = message;
  return last;
}

const partsOf = (message: UIMessage | undefined) =>
  (message?.parts ?? []).map((part) => {
    const p = part as Record<string, unknown>;
    if (p.type === 'text' || p.type === 'reasoning') return { type: p.type, text: p.text, state: p.state };
    if (p.type === 'dynamic-tool') {
      return {
        type: p.type,
        toolName: p.toolName,
        state: p.state,
        ...(p.output !== undefined && { output: p.output }),
        ...(p.errorText !== undefined && { errorText: p.errorText }),
      };
    }
    return { type: p.type };
  });

describe('a turn read by the AI SDK client', () => {
  it('text, a tool call and its result, then the answer: one step per model call', async () => {
    const { session } = streamingSession([
      { blocks: [{ text: ['Let me ', 'look'] }, { tool: { id: 'c1', name: 'echo', input: { q: 1 } } }] },
      { blocks: [{ thinking: ['hmm'] }, { text: ['Found ', 'it'] }] },
    ]);
    const { api } = await serve(session);
    const message = await chat(api, 'find it');
    expect(message?.role).toBe('assistant');
    expect(partsOf(message)).toEqual([
      { type: 'step-start' },
      { type: 'text', text: 'Let me look', state: 'done' },
      { type: 'dynamic-tool', toolName: 'echo', state: 'output-available', output: { q: 1 } },
      { type: 'step-start' },
      { type: 'reasoning', text: 'hmm', state: 'done' },
      { type: 'text', text: 'Found it', state: 'done' },
    ]);
    expect(await session.execute('again')).toBe('(no more script)'); // the session is free after the turn
    await session.cleanup();
  });

  it('a failed turn ends the message with an error that names the class, never the message (no secret leaks)', async () => {
    const secret = new Error('upstream said: key sk-live-123 is invalid at /home/me/.env');
    secret.name = 'AuthenticationError';
    const { session } = streamingSession([
      { blocks: [{ text: ['partial'] }], fail: { after: 1, error: secret } },
    ]);
    const { api } = await serve(session);
    const transport = new DefaultChatTransport({ api });
    const stream = await transport.sendMessages({
      chatId: 'c',
      messages: [userMessage('go')],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
    const text = JSON.stringify(chunks);
    expect(text).not.toContain('sk-live-123');
    expect(text).not.toContain('/home/me');
    expect(
      chunks.filter((c) => c.type === 'error').map((c) => (c as { errorText: string }).errorText),
    ).toContain('The turn failed (AuthenticationError).');
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'error' });
    await session.cleanup();
  });

  it('an unknown tool and a call a hook denied show as tool parts the client accepts', async () => {
    const { session } = streamingSession([
      {
        blocks: [
          { tool: { id: 'c1', name: 'nope', input: {} } },
          { tool: { id: 'c2', name: 'echo', input: { rm: true } } },
        ],
      },
      { blocks: [{ text: ['done'] }] },
    ]);
    await session.initialize();
    session.coordinator.hooks.register('tool:pre', (_event, data) =>
      (data.tool_input as { rm?: boolean }).rm ? { action: 'deny', reason: 'no rm' } : undefined,
    );
    const { api } = await serve(session);
    const message = await chat(api, 'go');
    expect(partsOf(message)).toEqual([
      { type: 'step-start' },
      { type: 'dynamic-tool', toolName: 'nope', state: 'output-error', errorText: "no tool 'nope'" },
      { type: 'dynamic-tool', toolName: 'echo', state: 'output-denied' },
      { type: 'step-start' },
      { type: 'text', text: 'done', state: 'done' },
    ]);
    await session.cleanup();
  });
});

/** Read SSE frames from a fetch response until `until` says stop; the frames read. */
async function readFrames(response: Response, until: (frames: string[]) => boolean): Promise<string[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const frames: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let end = text.indexOf('\n\n');
    while (end >= 0) {
      frames.push(text.slice(0, end));
      text = text.slice(end + 2);
      end = text.indexOf('\n\n');
    }
    if (until(frames)) {
      await reader.cancel();
      break;
    }
  }
  return frames;
}

const post = (api: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(api, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('resuming a turn after the connection dropped', () => {
  it('the turn runs on; GET …/<chatId>/stream with Last-Event-ID replays what was missed, then follows it live', async () => {
    const script: ScriptedResponse[] = [{ blocks: [{ text: ['one ', 'two'] }], hang: { after: 1 } }];
    const { session } = streamingSession(script);
    const buffers = new StreamBuffers();
    const { api } = await serve(session, { resumable: buffers });
    const first = await post(api, { id: 'chat-r', messages: [userMessage('count')] });
    expect(first.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    // Read up to the first text delta (the provider then hangs), then drop the connection.
    const seen = await readFrames(first, (frames) => frames.some((f) => f.includes('"text-delta"')));
    const deltaId = Number(/^id: (\d+)/.exec(seen.find((f) => f.includes('"text-delta"'))!)![1]);
    expect(buffers.running('chat-r')).toBe(true); // the turn did not stop with the client

    // The client missed the delta: it resumes after the frame before it.
    const again = await fetch(`${api}/chat-r/stream`, { headers: { 'last-event-id': String(deltaId - 1) } });
    expect(again.status).toBe(200);
    const live = readFrames(again, () => false);
    await session.coordinator.requestCancel({ immediate: true }); // the turn ends while the client follows it
    const frames = await live;
    const ids = frames.map((f) => Number(/^id: (\d+)/.exec(f)![1]));
    expect(ids).toEqual(ids.map((_, i) => deltaId + i)); // from the missed frame on, none skipped, none twice
    expect(frames[0]).toContain('"delta":"one "');
    expect(frames.at(-2)).toContain('"finishReason":"interrupted"');
    expect(frames.at(-1)).toMatch(/data: \[DONE\]$/);

    // The AI SDK's own resume (a replay from the start) rebuilds the whole message.
    const replay = await new DefaultChatTransport({ api }).reconnectToStream({ chatId: 'chat-r' });
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream({ stream: replay! })) last = message;
    expect(partsOf(last)).toEqual([{ type: 'step-start' }, { type: 'text', text: 'one ', state: 'done' }]);
    await session.cleanup();
  });

  it('a chat with no turn answers 204 (the client resumes nothing)', async () => {
    const { session } = streamingSession([]);
    const { api } = await serve(session);
    expect(await new DefaultChatTransport({ api }).reconnectToStream({ chatId: 'never' })).toBeNull();
    await session.cleanup();
  });

  it('not resumable: a client that leaves cancels its turn', async () => {
    const { session } = streamingSession([{ blocks: [{ text: ['a', 'b'] }], hang: { after: 1 } }]);
    await session.initialize();
    const cancelled = new Promise<void>((resolve) =>
      session.coordinator.hooks.register('cancel:completed', () => resolve()),
    );
    const { api } = await serve(session, { resumable: false });
    const response = await post(api, { id: 'c', messages: [userMessage('go')] });
    await readFrames(response, (frames) => frames.some((f) => f.includes('"text-delta"')));
    await cancelled;
    expect((await fetch(`${api}/c/stream`)).status).toBe(204);
    await session.cleanup();
  });
});

describe('hostile requests get a clear 4xx and run nothing', () => {
  it.each([
    ['not JSON', '{"id":', 400, 'INVALID_JSON'],
    ['an array', '[]', 400, 'INVALID_CHAT_REQUEST'],
    ['a chat id that walks up', { id: '..', messages: [userMessage('x')] }, 400, 'INVALID_CHAT_REQUEST'],
    ['a chat id with a slash', { id: 'a/b', messages: [userMessage('x')] }, 400, 'INVALID_CHAT_REQUEST'],
    [
      'no user message',
      { id: 'c', messages: [{ id: 'a', role: 'assistant', parts: [] }] },
      400,
      'INVALID_CHAT_REQUEST',
    ],
    [
      'parts not an array',
      { id: 'c', messages: [{ id: 'u', role: 'user', parts: 'hi' }] },
      400,
      'INVALID_CHAT_REQUEST',
    ],
    [
      'no text',
      { id: 'c', messages: [{ id: 'u', role: 'user', parts: [{ type: 'file' }] }] },
      400,
      'INVALID_CHAT_REQUEST',
    ],
    ['a prototype key', '{"id":"c","messages":[],"__proto__":{"x":1}}', 400, 'INVALID_CHAT_REQUEST'],
  ])('%s', async (_name, body, status, code) => {
    const { session, provider } = streamingSession([]);
    const { api } = await serve(session);
    const response = await post(api, body);
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
    expect(provider.calls).toBe(0);
    await session.cleanup();
  });

  it('a page of another origin can start or resume nothing (403), even as a text/plain POST; its own origin and a listed one can', async () => {
    const { session, provider } = streamingSession([{ blocks: [{ text: ['ok'] }] }]);
    const { api } = await serve(session, { allowedOrigins: ['https://app.example'] });
    const body = JSON.stringify({ id: 'c', messages: [userMessage('x')] });
    for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1:1']) {
      const posted = await fetch(api, {
        method: 'POST',
        headers: { origin, 'content-type': 'text/plain' },
        body,
      });
      expect(posted.status).toBe(403);
      expect(((await posted.json()) as { error: { code: string } }).error.code).toBe('FOREIGN_ORIGIN');
      expect((await fetch(`${api}/c/stream`, { headers: { origin } })).status).toBe(403);
    }
    expect(provider.calls).toBe(0);
    const own = new URL(api).origin;
    const allowed = await post(api, { id: 'c', messages: [userMessage('x')] }, { origin: own });
    expect(allowed.status).toBe(200);
    await allowed.text();
    const listed = await post(
      api,
      { id: 'd', messages: [userMessage('y')] },
      { origin: 'https://app.example' },
    );
    expect(listed.status).toBe(200);
    await listed.text();
    await session.cleanup();
  });

  it('a body over the limit is refused with 413, declared or not', async () => {
    const { session, provider } = streamingSession([]);
    const { api } = await serve(session, { maxBodyBytes: 1000 });
    const big = JSON.stringify({ id: 'c', messages: [userMessage('x'.repeat(5000))] });
    expect((await post(api, big)).status).toBe(413);
    const chunked = await fetch(api, {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(provider.calls).toBe(0);
    await session.cleanup();
  });

  it('other methods and paths: 405 and 404; a second turn while one runs: 409', async () => {
    const { session } = streamingSession([{ blocks: [{ text: ['a', 'b'] }], hang: { after: 1 } }]);
    const { api } = await serve(session);
    expect((await fetch(api, { method: 'PUT' })).status).toBe(405);
    expect((await fetch(`${api}/x/y`)).status).toBe(404);
    expect((await fetch(`${api}/a%20b/stream`)).status).toBe(404);
    expect((await fetch(`${api}/%E0%A4%A/stream`)).status).toBe(404); // malformed escapes
    const first = await post(api, { id: 'c', messages: [userMessage('go')] });
    await readFrames(first, (frames) => frames.some((f) => f.includes('"text-delta"')));
    const second = await post(api, { id: 'c', messages: [userMessage('again')] });
    expect(second.status).toBe(409);
    await session.coordinator.requestCancel({ immediate: true });
    await session.cleanup();
  });
});
