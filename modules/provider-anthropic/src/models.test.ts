import { CostMeter, lookupModel, ModelCatalog } from '@amplifier/provider-http';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL } from './config.js';
import { BUILTIN_MODELS, BUILTIN_PRICES, MODEL_TABLE } from './models.js';

const { serverLimits } = MODEL_TABLE;

describe('model table', () => {
  it('the built-in table: dated snapshots and aliases find their model, a newer model does not', () => {
    expect(lookupModel(BUILTIN_MODELS, 'claude-sonnet-4-5-20250929')?.max_output_tokens).toBe(64_000);
    expect(lookupModel(BUILTIN_MODELS, 'claude-opus-4-20250514')?.max_output_tokens).toBe(32_000);
    expect(lookupModel(BUILTIN_MODELS, 'anthropic/claude-3-5-haiku')?.max_output_tokens).toBe(8192);
    expect(lookupModel(BUILTIN_MODELS, 'claude-sonnet-9')).toBeUndefined();
  });

  it('the default model is a current one with limits and a price', () => {
    expect(DEFAULT_MODEL).toBe('claude-sonnet-4-6');
    expect(lookupModel(BUILTIN_MODELS, DEFAULT_MODEL)).toMatchObject({
      context_window: 1_000_000,
      max_output_tokens: 128_000,
    });
    expect(BUILTIN_PRICES[DEFAULT_MODEL]).toEqual({
      input: 3,
      output: 15,
      cache_write: 3.75,
      cache_read: 0.3,
    });
  });

  it('getModelInfo: built-in limits, config overrides, the API listing (all pages) when asked', async () => {
    const catalog = new ModelCatalog({
      ...MODEL_TABLE,
      defaultModel: 'claude-sonnet-4-5',
      overrides: { 'claude-next': { context_window: 1_000_000 } },
      listBuiltin: true,
    });
    expect(catalog.info()).toMatchObject({ context_window: 200_000, max_output_tokens: 64_000 });
    expect(catalog.info('claude-next')).toMatchObject({ context_window: 1_000_000, max_output_tokens: 8192 });
    const listed = await catalog.list(
      async () => [
        {
          id: 'claude-opus-5',
          display_name: 'Claude Opus 5',
          max_input_tokens: 500_000,
          max_tokens: 128_000,
        },
      ],
      () => {},
    );
    expect(listed).toEqual([
      expect.objectContaining({
        id: 'claude-opus-5',
        display_name: 'Claude Opus 5',
        context_window: 500_000,
        max_output_tokens: 128_000,
      }),
    ]);
    expect(serverLimits({ id: 'x', max_input_tokens: null })).toEqual({});
  });

  it('cost: cache writes and reads at their own prices', () => {
    const meter = new CostMeter({}, BUILTIN_PRICES);
    // sonnet 4.5: fresh 1M * 3 + write 1M * 3.75 + read 1M * 0.3 + output 1M * 15
    const usage = {
      input_tokens: 3_000_000,
      output_tokens: 1_000_000,
      total_tokens: 4_000_000,
      cache_write_tokens: 1_000_000,
      cache_read_tokens: 1_000_000,
    };
    meter.charge('claude-sonnet-4-5-20250929', usage);
    expect(usage).toHaveProperty('cost_usd', '22.05');
    expect(meter.totalUsd).toBe('22.05');
  });
});
