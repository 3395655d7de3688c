/**
 * A whole session against a local Gemini server: the real loop-basic
 * orchestrator and context-simple, this provider and a tool, loaded through
 * AmplifierSession (dev dependencies only; modules never import each other).
 * The recorded thinking stream and a recorded signed function call go
 * through the real loop, and the next request carries each thought
 * signature back on its part: what the orchestrator stores is what Gemini
 * needs.
 */
import { readFileSync } from 'node:fs';
import { mount as mountContext } from '@amplifier/context-simple';
import { AmplifierSession, silentLogger } from '@amplifier/core';
import { mount as mountLoop } from '@amplifier/loop-basic';
import { FakeLlmServer, reply, splitBytes } from '@amplifier/provider-http/testing';
import { inProcessLoader, MockTool } from '@amplifier/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { mount } from './index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./__fixtures__/recorded/${name}`, import.meta.url), 'utf8');

let server: FakeLlmServer;
beforeEach(async () => {
  server = await FakeLlmServer.start();
});
afterEach(() => server.close());

it('a turn with a signed call: loop-basic stores the call and its signature; the next request sends both back', async () => {
  const tool = new MockTool({ name: 'get_capital', output: 'Paris' });
  // The recorded call (gemini-2.5-pro, signed), then the recorded thinking stream as the final answer.
  server.enqueue(
    reply.json(200, JSON.parse(fixture('gemini-function-call.json'))),
    reply.sse(splitBytes(fixture('gemini-stream-thinking.sse'), 512)),
  );
  const session = new AmplifierSession(
    {
      session: { orchestrator: 'loop-basic', context: 'context-simple' },
      providers: [
        {
          module: 'provider-gemini',
          config: {
            api_key: 'gm-test',
            base_url: server.url,
            default_model: 'gemini-2.5-pro',
          },
        },
      ],
      tools: [{ module: 'tools-test' }],
    },
    {
      loader: inProcessLoader({
        'loop-basic': mountLoop,
        'context-simple': mountContext,
        'provider-gemini': mount,
        'tools-test': (c) => c.mount('tools', tool),
      }),
      logger: silentLogger,
      sessionId: 'session-gemini',
    },
  );
  await using _ = session;
  await session.initialize();
  const answer = await session.execute('What is the capital of France?');
  expect(answer.length).toBeGreaterThan(0);
  expect(tool.inputs).toEqual([{ country: 'France' }]);
  const signature = /"thoughtSignature": "([^"]+)"/.exec(fixture('gemini-function-call.json'))?.[1];
  const second = server.requests[1]!.body;
  const model = second.contents.find((c: { role: string }) => c.role === 'model');
  expect(model.parts).toEqual([
    { functionCall: { name: 'get_capital', args: { country: 'France' } }, thoughtSignature: signature },
  ]);
  const results = second.contents.at(-1);
  expect(results.role).toBe('user');
  expect(results.parts).toHaveLength(1);
  expect(results.parts[0].functionResponse.name).toBe('get_capital');
  expect(JSON.stringify(results.parts[0].functionResponse.response)).toContain('Paris');
  // The stored history keeps the final thinking block and the signed answer text.
  const stored = await session.coordinator.get('context')!.getMessages();
  const last = stored.at(-1)!;
  expect(Array.isArray(last.content) && last.content.map((b) => b.type)).toEqual(['thinking', 'text']);
});
