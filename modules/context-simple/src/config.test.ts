import { describe, expect, expectTypeOf, it } from 'vitest';
import { type ContextSimpleConfig, type NoticeVerbosity, resolveConfig } from './config.js';

describe('the config type is derived from CONFIG_SCHEMA (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile', () => {
    expectTypeOf<ContextSimpleConfig['max_tokens']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<NoticeVerbosity>().toEqualTypeOf<'minimal' | 'normal' | 'verbose'>();
    // @ts-expect-error compaction_notice_verbosity is one of three words
    const bad: ContextSimpleConfig = { compaction_notice_verbosity: 'loud' };
    expect(() => resolveConfig(bad)).toThrow(/compaction_notice_verbosity/);
  });
});
