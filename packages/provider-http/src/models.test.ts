import { describe, expect, it } from 'vitest';
import { CostMeter, costPico, formatUsd } from './cost.js';
import { listedLimits, lookupModel, ModelCatalog, type ModelCatalogOptions, modelInfo } from './models.js';

describe('lookupModel', () => {
  it('matches exact ids, routed ids and dated snapshots, never a different model', () => {
    const table = { 'gpt-4o': 1, 'gpt-4o-mini': 2, 'gpt-5': 3 };
    expect(lookupModel(table, 'gpt-4o')).toBe(1);
    expect(lookupModel(table, 'openai/gpt-4o-mini')).toBe(2);
    expect(lookupModel(table, 'gpt-4o-2024-08-06')).toBe(1);
    expect(lookupModel(table, 'gpt-4o-mini-2024-07-18')).toBe(2);
    expect(lookupModel(table, 'gpt-4o-latest')).toBe(1);
    expect(lookupModel(table, 'gpt-5-mini')).toBeUndefined();
    expect(lookupModel(table, 'gpt-5-2025-08-07')).toBe(3);
    expect(lookupModel(table, 'gpt-5-1')).toBeUndefined(); // a newer model, not a snapshot of gpt-5
    expect(lookupModel(table, 'llama3.1:8b')).toBeUndefined();
    expect(lookupModel(table, 'constructor')).toBeUndefined();
  });

  it('takes the longest key a snapshot extends (claude-sonnet-4-5 is not claude-sonnet-4)', () => {
    const table = { 'claude-sonnet-4': 1, 'claude-sonnet-4-5': 2 };
    expect(lookupModel(table, 'claude-sonnet-4-5-20250929')).toBe(2);
    expect(lookupModel(table, 'claude-sonnet-4-20250514')).toBe(1);
    expect(lookupModel(table, 'anthropic/claude-sonnet-4-5')).toBe(2);
    expect(lookupModel(table, 'claude-sonnet-4-6')).toBeUndefined();
  });
});

describe('ModelCatalog', () => {
  const options = (overrides: Partial<ModelCatalogOptions> = {}): ModelCatalogOptions => ({
    defaultModel: 'big',
    overrides: { mine: { context_window: 8192 } },
    builtin: { big: { context_window: 128_000, max_output_tokens: 16_384, capabilities: ['tools'] } },
    unknown: { context_window: 4096, max_output_tokens: 1024 },
    capabilities: ['tools', 'streaming'],
    serverLimits: (entry) => (typeof entry.ctx === 'number' ? { context_window: entry.ctx } : {}),
    listBuiltin: false,
    ...overrides,
  });

  it('precedence: config models over the server listing over built-in over unknown defaults', async () => {
    const catalog = new ModelCatalog(options());
    expect(catalog.info()).toMatchObject({ id: 'big', context_window: 128_000, capabilities: ['tools'] });
    expect(catalog.info('mine')).toMatchObject({
      context_window: 8192,
      max_output_tokens: 1024,
      capabilities: ['tools', 'streaming'],
      display_name: 'mine',
    });
    expect(catalog.info('other')).toMatchObject({ context_window: 4096, max_output_tokens: 1024 });
    const listed = await catalog.list(
      async () => [{ id: 'big', ctx: 64_000 }, { id: 'local', ctx: 32_768 }, { nope: 1 }],
      () => {},
    );
    expect(listed.map((m) => [m.id, m.context_window])).toEqual([
      ['big', 64_000],
      ['local', 32_768],
    ]);
    expect(catalog.info('local').context_window).toBe(32_768);
    expect(catalog.info('big').max_output_tokens).toBe(16_384);
  });

  it('a listing that worked is cached; a failed one falls back and is tried again next time', async () => {
    const catalog = new ModelCatalog(options({ listBuiltin: true, defaultModel: 'x' }));
    const reasons: unknown[] = [];
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error('404');
    };
    const fallback = await catalog.list(failing, (e) => reasons.push(e));
    expect(fallback.map((m) => m.id)).toEqual(['x', 'mine', 'big']);
    expect(reasons).toHaveLength(1);
    await catalog.list(failing, () => {});
    expect(calls).toBe(2);
    const working = async () => {
      calls++;
      return [{ id: 'a' }];
    };
    await catalog.list(working, () => {});
    await catalog.list(working, () => {});
    expect(calls).toBe(3);
    const without = new ModelCatalog(options());
    expect((await without.list(failing, () => {})).map((m) => m.id)).toEqual(['big', 'mine']);
  });

  it('modelInfo copies the capabilities', () => {
    const capabilities = ['tools'];
    const info = modelInfo('m', { context_window: 1, max_output_tokens: 1 }, capabilities);
    info.capabilities!.push('x');
    expect(capabilities).toEqual(['tools']);
  });
});

describe('cost', () => {
  it('exact decimal arithmetic per million tokens, cache reads and writes at their own price', () => {
    const price = { input: 2.5, cache_read: 1.25, output: 10 };
    const usage = { input_tokens: 1000, output_tokens: 200, total_tokens: 1200, cache_read_tokens: 400 };
    // 600 * 2.5e-6 + 400 * 1.25e-6 + 200 * 10e-6 = 0.0015 + 0.0005 + 0.002
    expect(formatUsd(costPico(usage, price))).toBe('0.004');
    const cached = {
      input_tokens: 3_000_000,
      output_tokens: 1_000_000,
      total_tokens: 4_000_000,
      cache_write_tokens: 1_000_000,
      cache_read_tokens: 1_000_000,
    };
    // fresh 1M * 3 + write 1M * 3.75 + read 1M * 0.3 + output 1M * 15
    expect(formatUsd(costPico(cached, { input: 3, output: 15, cache_write: 3.75, cache_read: 0.3 }))).toBe(
      '22.05',
    );
    expect(formatUsd(0n)).toBe('0');
    expect(formatUsd(-1_500_000_000_000n)).toBe('-1.5');
    expect(formatUsd(123_456_000_000_000n)).toBe('123.456');
    expect(
      formatUsd(costPico({ input_tokens: 3, output_tokens: 0, total_tokens: 3 }, { input: 0.15, output: 0 })),
    ).toBe('0.00000045');
  });

  it('CostMeter: config prices over built-in ones, by snapshot too; null before any priced call', () => {
    const meter = new CostMeter(
      { 'local-model': { input: 0, output: 0 }, big: { input: 1, output: 1 } },
      { big: { input: 5, output: 5 }, small: { input: 0.15, output: 0.6 } },
    );
    expect(meter.totalUsd).toBeNull();
    const unknown = { input_tokens: 10, output_tokens: 10, total_tokens: 20 };
    meter.charge('mystery', unknown);
    expect(unknown).not.toHaveProperty('cost_usd');
    meter.charge('big', undefined);
    expect(meter.totalUsd).toBeNull();
    const a = { input_tokens: 1_000_000, output_tokens: 0, total_tokens: 1_000_000 };
    meter.charge('big-2025-01-01', a);
    expect(a).toHaveProperty('cost_usd', '1');
    const b = { input_tokens: 0, output_tokens: 1_000_000, total_tokens: 1_000_000 };
    meter.charge('small', b);
    expect(b).toHaveProperty('cost_usd', '0.6');
    meter.charge('local-model', { ...a });
    expect(meter.totalUsd).toBe('1.6');
  });
});

describe('listedLimits', () => {
  it('reads the first positive integer and the first non-empty name at the given paths, own properties only', () => {
    const read = listedLimits({
      context: ['context_window', 'meta.n_ctx', 'top.context_length'],
      output: ['max_output_tokens'],
      name: ['display_name', 'name'],
    });
    expect(read({ id: 'a', context_window: 0, meta: { n_ctx: 4096 }, name: 'A' })).toEqual({
      context_window: 4096,
      display_name: 'A',
    });
    expect(
      read({ id: 'b', context_window: 1.5, meta: 'x', top: { context_length: 10 }, display_name: '' }),
    ).toEqual({
      context_window: 10,
    });
    expect(read({ id: 'c', max_output_tokens: 8, meta: Object.create({ n_ctx: 99 }) })).toEqual({
      max_output_tokens: 8,
    });
    expect(read({ id: 'd', meta: null, max_output_tokens: '8' })).toEqual({});
  });
});
