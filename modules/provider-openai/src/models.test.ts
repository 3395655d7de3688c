import { describe, expect, it } from 'vitest';
import { CostMeter, costPico, formatUsd, lookup, ModelCatalog, serverLimits } from './models.js';

describe('model table', () => {
  const table = { 'gpt-4o': 1, 'gpt-4o-mini': 2, 'gpt-5': 3 };

  it('matches exact ids, routed ids and dated snapshots, never a different model', () => {
    expect(lookup(table, 'gpt-4o')).toBe(1);
    expect(lookup(table, 'openai/gpt-4o-mini')).toBe(2);
    expect(lookup(table, 'gpt-4o-2024-08-06')).toBe(1);
    expect(lookup(table, 'gpt-4o-mini-2024-07-18')).toBe(2);
    expect(lookup(table, 'gpt-5-mini')).toBeUndefined();
    expect(lookup(table, 'gpt-5-2025-08-07')).toBe(3);
    expect(lookup(table, 'gpt-5-1')).toBeUndefined(); // a newer model, not a snapshot of gpt-5
    expect(lookup(table, 'llama3.1:8b')).toBeUndefined();
    expect(lookup(table, 'constructor')).toBeUndefined();
  });

  it('getModelInfo precedence: config models over server listing over built-in over unknown defaults', async () => {
    const catalog = new ModelCatalog('gpt-4o', { 'my-model': { context_window: 8192 } }, false);
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
    const catalog = new ModelCatalog(
      'llama3',
      { qwen: { context_window: 4096, max_output_tokens: 1024 } },
      false,
    );
    const listed = await catalog.list(
      () => Promise.reject(new Error('404')),
      (e) => reasons.push(e),
    );
    expect(listed.map((m) => m.id)).toEqual(['llama3', 'qwen']);
    expect(reasons).toHaveLength(1);
    const openai = new ModelCatalog('gpt-4o', {}, true);
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
  it('exact decimal arithmetic per million tokens, cache reads at their price', () => {
    const price = { input: 2.5, cache_read: 1.25, output: 10 };
    const usage = { input_tokens: 1000, output_tokens: 200, total_tokens: 1200, cache_read_tokens: 400 };
    // 600 * 2.5e-6 + 400 * 1.25e-6 + 200 * 10e-6 = 0.0015 + 0.0005 + 0.002
    expect(formatUsd(costPico(usage, price))).toBe('0.004');
    expect(formatUsd(0n)).toBe('0');
    expect(formatUsd(123_456_000_000_000n)).toBe('123.456');
    expect(
      formatUsd(costPico({ input_tokens: 3, output_tokens: 0, total_tokens: 3 }, { input: 0.15, output: 0 })),
    ).toBe('0.00000045');
  });

  it('CostMeter: built-in prices, config prices override, null before any priced call', () => {
    const meter = new CostMeter({
      'local-model': { input: 0, output: 0 },
      'gpt-4o': { input: 1, output: 1 },
    });
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
