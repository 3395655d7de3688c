import { AmplifierError } from '@amplifier/core';
import { createTestCoordinator, RecordingLogger } from '@amplifier/testing';
import { describe, expect, it } from 'vitest';
import { mount } from './index.js';

describe('config policy (readModuleConfig (@amplifier/schema) through the provider kit)', () => {
  it('an unknown key warns once and the provider mounts', async () => {
    const logger = new RecordingLogger();
    const coordinator = createTestCoordinator({ bare: true, logger });
    const first = await mount(coordinator, { api_key: 'k', colour: 'red' });
    const second = await mount(coordinator, { api_key: 'k', colour: 'red' });
    expect(coordinator.get('providers').size).toBe(1);
    expect(logger.problemsSince()).toEqual(["provider-anthropic: unknown config key 'colour' is ignored"]);
    await first?.();
    await second?.();
  });

  it('a misspelt base_url is refused with the reason (requests would go to the public API)', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    const error = await mount(coordinator, { api_key: 'k', baseurl: 'http://localhost:1/v1' }).catch(
      (e: unknown) => e,
    );
    expect(AmplifierError.is(error, 'CONFIG_REFUSED')).toBe(true);
    expect((error as Error).message).toContain("'baseurl' is refused");
    expect((error as Error).message).toContain('instead of the server the config names');
    expect(coordinator.get('providers').size).toBe(0);
  });
});
