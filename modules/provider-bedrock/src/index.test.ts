/**
 * Mounting: when the provider mounts (a Bedrock key, AWS credentials, a
 * profile or region, or a local endpoint) and when it does not, the config
 * policy (community keys accepted silently, unknown keys warned, a misspelt
 * base_url refused), the config type, and a session turn through the module.
 */
import { AmplifierError } from '@amplifier/core';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { isolateAwsEnv } from './__fixtures__/env.js';
import type { BedrockConfig } from './config.js';
import { createBedrockProvider, mount } from './index.js';

let restoreEnv: () => void;
beforeAll(() => {
  restoreEnv = isolateAwsEnv();
});
afterAll(() => restoreEnv());
beforeEach(() => {
  for (const name of ['AWS_BEARER_TOKEN_BEDROCK', 'AWS_ACCESS_KEY_ID', 'AWS_PROFILE', 'AWS_REGION'])
    delete process.env[name];
});

describe('mount', () => {
  it('without any AWS credential, profile or region it does not mount and says what to set', async () => {
    const logger = new RecordingLogger();
    const coordinator = createTestCoordinator({ bare: true, logger });
    expect(await mount(coordinator, {})).toBeUndefined();
    expect(coordinator.get('providers').size).toBe(0);
    expect(logger.problemsSince().join('\n')).toContain(
      'provider-bedrock: not mounted: no AWS credentials. Set AWS_BEARER_TOKEN_BEDROCK',
    );
  });

  it.each([
    ['AWS_BEARER_TOKEN_BEDROCK', {}],
    ['AWS_ACCESS_KEY_ID', {}],
    ['AWS_PROFILE', {}],
    ['AWS_REGION', {}],
    ['config aws_profile', { aws_profile: 'work' }],
    ['config aws_region', { aws_region: 'us-west-2' }],
    ['a local base_url', { base_url: 'http://127.0.0.1:9' }],
  ])('mounts as bedrock with %s', async (what, config) => {
    if (what.startsWith('AWS_')) process.env[what] = what === 'AWS_REGION' ? 'us-east-1' : 'x';
    const coordinator = createTestCoordinator({ bare: true });
    const cleanup = await mount(coordinator, config);
    const provider = coordinator.get('providers').get('bedrock');
    expect(provider?.getInfo()).toMatchObject({ id: 'bedrock', display_name: 'Amazon Bedrock' });
    expect((await provider!.listModels()).map((m) => m.id)).toContain(
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
    );
    await cleanup?.();
  });

  it('community keys are accepted without a warning; an unknown key warns once; a misspelt base_url is refused', async () => {
    const logger = new RecordingLogger();
    const coordinator = createTestCoordinator({ bare: true, logger });
    const cleanup = await mount(coordinator, {
      aws_region: 'us-east-1',
      aws_profile: 'default',
      use_cross_region_inference: true,
      debug: true,
      raw_debug: false,
      colour: 'red',
    });
    expect(logger.problemsSince()).toEqual(["provider-bedrock: unknown config key 'colour' is ignored"]);
    await cleanup?.();
    const error = await mount(createTestCoordinator({ bare: true }), {
      aws_region: 'us-east-1',
      baseurl: 'http://x',
    }).catch((e: unknown) => e);
    expect(AmplifierError.is(error, 'CONFIG_REFUSED')).toBe(true);
  });

  it('the config type is derived from the schema; bad values are refused', () => {
    expectTypeOf<BedrockConfig['aws_region']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<BedrockConfig['use_cross_region_inference']>().toEqualTypeOf<boolean | undefined>();
    // @ts-expect-error temperature is a number (and refused at run time)
    expect(() => createBedrockProvider({ temperature: 'hot' })).toThrow(/temperature/);
    expect(() => createBedrockProvider({ temperature: 1.5 })).toThrow(/temperature/);
  });
});
