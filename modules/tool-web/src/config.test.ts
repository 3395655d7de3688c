import { AmplifierError } from '@amplifier/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type ResolvedConfig, resolveConfig, type WebConfig } from './config.js';

describe('the config type is derived from CONFIG_SCHEMA (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile and is refused at mount', () => {
    expectTypeOf<WebConfig['allowed_cidrs']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<WebConfig['default_format']>().toEqualTypeOf<'markdown' | 'text' | 'html' | undefined>();
    expectTypeOf<ResolvedConfig['defaultFormat']>().toEqualTypeOf<'markdown' | 'text' | 'html'>();
    // @ts-expect-error max_redirects is a number
    const bad: WebConfig = { max_redirects: 'five' };
    expect(() => resolveConfig(bad)).toThrow(AmplifierError);
    expect(() => resolveConfig(bad)).toThrow(/max_redirects must be integer/);
  });

  it('a list entry that does not parse fails the mount through the one config wrapper, naming the entry', () => {
    for (const [config, entry] of [
      [{ allowed_cidrs: ['10.0.0.0'] }, "tool-web: allowed_cidrs entry '10.0.0.0' is not a CIDR"],
      [{ allowed_hosts: ['http://x/y'] }, 'tool-web: allowed_hosts entry'],
      [{ blocked_domains: ['a b'] }, "tool-web: blocked_domains entry 'a b' is not a domain name"],
    ] as const) {
      let error: unknown;
      try {
        resolveConfig(config);
      } catch (caught) {
        error = caught;
      }
      expect(AmplifierError.is(error, 'MOUNT_FAILED')).toBe(true);
      expect((error as Error).message.startsWith(entry)).toBe(true);
      expect((error as Error).message).toMatch(/\nFix these keys in the module's config\.$/);
    }
    expect(resolveConfig({ allowed_cidrs: ['10.1.0.0/16'] }).policy.allowedCidrs).toHaveLength(1);
  });
});
