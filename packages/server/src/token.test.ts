import { AmplifierError } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { isLoopbackAddress } from './addresses.js';
import { newToken, resolveServiceToken, ServiceSetupError, TOKEN_BYTES } from './token.js';

function thrownBy(attempt: () => unknown): unknown {
  try {
    attempt();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('tokens', () => {
  it('a generated token is 256 random bits, new each time', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const token = newToken();
      expect(Buffer.from(token, 'base64url')).toHaveLength(TOKEN_BYTES);
      expect(TOKEN_BYTES * 8).toBe(256);
      seen.add(token);
    }
    expect(seen.size).toBe(100);
  });

  it('takes --token first, then the environment, else generates one on loopback', () => {
    const base = { service: 'test', envName: 'TEST_TOKEN', host: '127.0.0.1' };
    expect(resolveServiceToken({ ...base, flag: 'f1', env: { TEST_TOKEN: 'e1' } })).toEqual({
      token: 'f1',
      source: 'flag',
    });
    expect(resolveServiceToken({ ...base, env: { TEST_TOKEN: 'e1' } })).toEqual({
      token: 'e1',
      source: 'env',
    });
    expect(resolveServiceToken({ ...base, env: { TEST_TOKEN: '' } }).source).toBe('generated');
  });

  it('refuses every non-loopback bind without a token of the user, and names what to do', () => {
    for (const host of [
      '0.0.0.0',
      '::',
      '[::]',
      '192.168.1.5',
      '10.0.0.1',
      'example.com',
      '::ffff:127.0.0.1',
      '128.0.0.1',
    ]) {
      const attempt = () => resolveServiceToken({ service: 'test', envName: 'TEST_TOKEN', host, env: {} });
      expect(attempt, host).toThrow(ServiceSetupError);
      expect(attempt, host).toThrow(/--token or TEST_TOKEN/);
      expect(AmplifierError.is(thrownBy(attempt), 'SERVICE_SETUP_INVALID'), host).toBe(true);
    }
    expect(
      resolveServiceToken({ service: 't', envName: 'T', host: '0.0.0.0', flag: 'mine', env: {} }).token,
    ).toBe('mine');
  });

  it('refuses a given token that cannot travel in a header or a cookie', () => {
    for (const flag of ['has space', 'semi;colon\n', 'tab\t', 'é']) {
      expect(() =>
        resolveServiceToken({ service: 't', envName: 'T', host: '127.0.0.1', flag, env: {} }),
      ).toThrow(/printable ASCII/);
    }
  });

  it('knows loopback addresses', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
      expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['0.0.0.0', '::', '127.0.0.256', '1.2.3.4', 'localhost.evil'])
      expect(isLoopbackAddress(a), a).toBe(false);
  });
});
