import { CostMeter, lookupModel, ModelCatalog, type ModelLimits } from '@amplifier/provider-http';
import { describe, expect, it } from 'vitest';
import { BUILTIN_MODELS, BUILTIN_PRICES, MODEL_TABLE } from './models.js';

const { serverLimits } = MODEL_TABLE;

const catalogOf = (
  defaultModel: string,
  overrides: Record<string, Partial<ModelLimits>>,
  listBuiltin: boolean,
) => new ModelCatalog({ ...MODEL_TABLE, defaultModel, overrides, listBuiltin });

describe('model table', () => {
  it('the built-in tables: snapshots and routed ids find their model, a newer model does not', () => {
    expect(lookupModel(BUILTIN_MODELS, 'gpt-4o-2024-08-06')?.context_window).toBe(128_000);
    expect(lookupModel(BUILTIN_MODELS, 'openai/gpt-4.1-mini')?.max_output_tokens).toBe(32_768);
    expect(lookupModel(BUILTIN_MODELS, 'gpt-5-1')).toBeUndefined();
    expect(Object.keys(BUILTIN_PRICES).sort()).toEqual(Object.keys(BUILTIN_MODELS).sort());
  });

  it('getModelInfo precedence: config models over server listing over built-in over unknown defaults', async () => {
    const catalog = catalogOf('gpt-4o', { 'my-model': { context_window: 8192 } }, false);
    expect(catalog.info()).toMatchObject({
      id: 'gpt-4o',
      context_window: 128_000,
      max_output_tokens: 16_384,
    });
    expect(catalog.info('my-model')).toMatchObject({ context_window: 8192, max_output_tokens: 4096 });
    expect(catalog.info('unknown')).toMatchObject({ context_window: 128_000, max_output_tokens: 4096 });
    const listed = await catalog.list(
      async () => [
        { id: 'gpt-4o', context_length: 64_000 },
        { id: 'local', max_model_len: 32_768 },
        { nope: 1 },
      ],
      () => {},
    );
    expect(listed.map((m) => [m.id, m.context_window])).toEqual([
      ['gpt-4o', 64_000],
      ['local', 32_768],
    ]);
    expect(catalog.info('local').context_window).toBe(32_768);
  });

  it('listing falls back to the configured models when the server cannot list them', async () => {
    const reasons: unknown[] = [];
    const catalog = catalogOf('llama3', { qwen: { context_window: 4096, max_output_tokens: 1024 } }, false);
    const listed = await catalog.list(
      () => Promise.reject(new Error('404')),
      (e) => reasons.push(e),
    );
    expect(listed.map((m) => m.id)).toEqual(['llama3', 'qwen']);
    expect(reasons).toHaveLength(1);
    const openai = catalogOf('gpt-4o', {}, true);
    expect(
      (
        await openai.list(
          () => Promise.reject(new Error('x')),
          () => {},
        )
      ).map((m) => m.id),
    ).toContain('o3');
  });

  it('serverLimits reads the names servers use', () => {
    expect(
      serverLimits({
        id: 'a',
        context_length: 200_000,
        top_provider: { max_completion_tokens: 8192 },
        name: 'A',
      }),
    ).toEqual({
      context_window: 200_000,
      max_output_tokens: 8192,
      display_name: 'A',
    });
    expect(serverLimits({ id: 'b', meta: { n_ctx_train: 131_072 } })).toEqual({ context_window: 131_072 });
    expect(serverLimits({ id: 'c', object: 'model' })).toEqual({});
  });
});

describe('cost', () => {
  it('CostMeter: built-in prices, config prices override, null before any priced call', () => {
    const meter = new CostMeter(
      { 'local-model': { input: 0, output: 0 }, 'gpt-4o': { input: 1, output: 1 } },
      BUILTIN_PRICES,
    );
    expect(meter.totalUsd).toBeNull();
    const unknown = { input_tokens: 10, output_tokens: 10, total_tokens: 20 };
    meter.charge('mystery', unknown);
    expect(unknown).not.toHaveProperty('cost_usd');
    expect(meter.totalUsd).toBeNull();
    const a = { input_tokens: 1_000_000, output_tokens: 0, total_tokens: 1_000_000 };
    meter.charge('gpt-4o', a);
    expect(a).toHaveProperty('cost_usd', '1');
    const b = { input_tokens: 0, output_tokens: 1_000_000, total_tokens: 1_000_000 };
    meter.charge('gpt-4o-mini', b);
    expect(b).toHaveProperty('cost_usd', '0.6');
    meter.charge('local-model', { ...a });
    expect(meter.totalUsd).toBe('1.6');
  });
});
