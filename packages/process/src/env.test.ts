import { afterEach, describe, expect, it } from 'vitest';
import { childEnvironment, runInGroup } from './index.js';

const HOST: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/me',
  LANG: 'C.UTF-8',
  LC_ALL: 'C',
  ANTHROPIC_API_KEY: 'sk-ant-1',
  OPENAI_API_KEY: 'sk-2',
  AWS_SECRET_ACCESS_KEY: 'aws-3',
  AWS_SESSION_TOKEN: 'aws-4',
  GITHUB_TOKEN: 'ghp-5',
  DB_PASSWORD: 'pw-6',
  STRIPE_KEY: 'sk-7',
  SSH_AUTH_SOCK: '/tmp/agent.sock',
  MAX_TOKENS: '100',
};

describe('childEnvironment', () => {
  it('inherit (the default): every host variable but the secret-named ones, which are listed as withheld', () => {
    const { env, withheld } = childEnvironment(HOST);
    expect({ ...env }).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/me',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      SSH_AUTH_SOCK: '/tmp/agent.sock',
      MAX_TOKENS: '100',
    });
    expect(withheld).toEqual([
      'ANTHROPIC_API_KEY',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'DB_PASSWORD',
      'GITHUB_TOKEN',
      'OPENAI_API_KEY',
      'STRIPE_KEY',
    ]);
  });

  it('pass names a secret-named variable to let it through; names that are not set are skipped', () => {
    const { env, withheld } = childEnvironment(HOST, { pass: ['GITHUB_TOKEN', 'NOT_SET_TOKEN'] });
    expect(env.GITHUB_TOKEN).toBe('ghp-5');
    expect(Object.hasOwn(env, 'NOT_SET_TOKEN')).toBe(false);
    expect(withheld).not.toContain('GITHUB_TOKEN');
    expect(env.OPENAI_API_KEY).toBeUndefined();
  });

  it('an allowlist offers only the names it matches (trailing * is a prefix); patterns never admit a secret', () => {
    const { env, withheld } = childEnvironment(HOST, {
      inherit: ['PATH', 'LC_*', 'AWS_*', 'OPENAI_API_KEY'],
    });
    expect({ ...env }).toEqual({ PATH: '/usr/bin:/bin', LC_ALL: 'C' });
    expect(withheld).toEqual(['AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'OPENAI_API_KEY']);
    const none = childEnvironment(HOST, { inherit: [], pass: ['PATH', 'OPENAI_API_KEY'] });
    expect({ ...none.env }).toEqual({ PATH: '/usr/bin:/bin', OPENAI_API_KEY: 'sk-2' });
    expect(none.withheld).toEqual([]);
  });

  it('set values win over the host and are not filtered', () => {
    const { env } = childEnvironment(HOST, { set: { PATH: '/opt/bin', TOOL_TOKEN: 'given' } });
    expect(env.PATH).toBe('/opt/bin');
    expect(env.TOOL_TOKEN).toBe('given');
  });

  it('reads own properties only: inherited policy fields and host keys are ignored, the result has no prototype', () => {
    const policy = Object.create({ inherit: ['PATH'], pass: ['OPENAI_API_KEY'], set: { X: '1' } });
    const { env } = childEnvironment(HOST, policy);
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.HOME).toBe('/home/me');
    expect(env.X).toBeUndefined();
    const host = Object.assign(Object.create({ INHERITED_VAR: 'x' }), { PATH: '/bin' });
    const fromHost = childEnvironment(host);
    expect(Object.keys(fromHost.env)).toEqual(['PATH']);
    expect(Object.getPrototypeOf(fromHost.env)).toBeNull();
    const set = JSON.parse('{"__proto__": {"A": "1"}, "B": "2"}') as Record<string, string>;
    const withProto = childEnvironment({}, { set });
    expect(Object.keys(withProto.env)).toEqual(['B']);
  });
});

describe('runInGroup without env: a real child sees no secret-named variable', () => {
  const names = ['AMPLIFIER_TEST_OPENAI_API_KEY', 'AMPLIFIER_TEST_GITHUB_TOKEN', 'AMPLIFIER_TEST_PLAIN'];
  afterEach(() => {
    for (const name of names) delete process.env[name];
  });

  it('env prints PATH and the plain variable, not the secrets', async () => {
    process.env.AMPLIFIER_TEST_OPENAI_API_KEY = 'sk-LEAK-1';
    process.env.AMPLIFIER_TEST_GITHUB_TOKEN = 'ghp-LEAK-2';
    process.env.AMPLIFIER_TEST_PLAIN = 'visible';
    const run = await runInGroup('env', [], {
      timeoutMs: 10_000,
      graceMs: 100,
      capture: { headBytes: 1 << 20 },
    });
    const out = run.stdout.head.toString('utf8');
    expect(out).toContain('AMPLIFIER_TEST_PLAIN=visible');
    expect(out).toContain('PATH=');
    expect(out).not.toContain('LEAK');
  });
});
