import { describe, expect, it } from 'vitest';
import { createTestCoordinator, toolConformance } from '../../../index.js';
import { mount } from './index.js';

// Every check of the tool suite, against a fresh coordinator per check.
toolConformance({ mount, config: { greeting: 'Hi' }, tools: ['hello'] });

describe('hello', () => {
  it('greets with the configured greeting', async () => {
    const coordinator = createTestCoordinator({ bare: true });
    await mount(coordinator, { greeting: 'Hi' });
    const result = await coordinator.get('tools', 'hello')?.execute({ name: 'Ada' });
    expect(result).toEqual({ success: true, output: 'Hi, Ada!' });
  });

  it('refuses a greeting that is not a string', async () => {
    await expect(mount(createTestCoordinator({ bare: true }), { greeting: 42 })).rejects.toThrow(
      'config.greeting must be a string',
    );
  });
});
