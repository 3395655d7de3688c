import { LLMError } from '@amplifier/core';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { createMockProvider, mount } from './index.js';

const request = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('the reference keys (Amplifier test profile)', () => {
  it('default_response is the answer when there is no script; unknown keys warn and the provider mounts', async () => {
    const logger = new RecordingLogger();
    const coordinator = createTestCoordinator({ bare: true, logger });
    await mount(coordinator, {
      default_response: 'This is a mock response for testing',
      response_delay: 0,
      fail_probability: 0.0,
      name: 'mock',
    });
    const provider = coordinator.get('providers').get('mock')!;
    expect((await provider.complete(request)).content).toEqual([
      { type: 'text', text: 'This is a mock response for testing' },
    ]);
    expect(logger.problemsSince()).toEqual(["provider-mock: unknown config key 'name' is ignored"]);
  });

  it('fail_probability 1 fails every call with a retryable unavailable LLMError; 0 never does', async () => {
    const failing = createMockProvider({ fail_probability: 1, use_streaming: false });
    const error = await failing.complete(request).catch((e: unknown) => e);
    expect(LLMError.is(error, 'unavailable')).toBe(true);
    expect((error as LLMError).retryable).toBe(true);
    expect((error as Error).message).toContain('fail_probability 1');
    const fine = createMockProvider({ fail_probability: 0 });
    expect((await fine.complete(request)).content).toHaveLength(1);
  });

  it('fail_probability draws from the injected random source, once per call', async () => {
    const draws = [0.1, 0.9, 0.29, 0.31];
    const provider = createMockProvider({ fail_probability: 0.3, random: () => draws.shift()! });
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      outcomes.push(
        await provider.complete(request).then(
          () => 'ok',
          () => 'failed',
        ),
      );
    }
    expect(outcomes).toEqual(['failed', 'ok', 'failed', 'ok']);
  });

  it('response_delay waits before answering, and aborting the request ends the wait', async () => {
    const provider = createMockProvider({ response_delay: 3600 });
    const controller = new AbortController();
    const pending = provider.complete(request, { signal: controller.signal }).catch((e: unknown) => e);
    controller.abort();
    const error = await pending;
    expect(LLMError.is(error, 'abort')).toBe(true);
    expect((error as Error).message).toContain('response_delay');
  });

  it('wrong types of the reference keys fail naming the key', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    await expect(mount(coordinator, { fail_probability: 2 })).rejects.toThrow(
      /fail_probability must be <= 1/,
    );
    await expect(mount(coordinator, { response_delay: 'slow' })).rejects.toThrow(
      /response_delay must be number/,
    );
    await expect(mount(coordinator, { default_response: 'a', default_text: 'b' })).rejects.toThrow(
      /default_response differs from default_text/,
    );
  });
});
