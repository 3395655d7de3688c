import { describe, expect, it } from 'vitest';
import { fitSteps } from './peers.js';
import { fmt, median, meets, summarize } from './stats.js';

describe('median and summarize', () => {
  it('takes the middle of an odd sample and the mean of the two middles of an even one', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('reports min, max and count without reordering the input', () => {
    const xs = [9, 2, 7, 4, 5];
    expect(summarize(xs)).toEqual({ median: 5, min: 2, max: 9, n: 5 });
    expect(xs).toEqual([9, 2, 7, 4, 5]);
  });

  it('refuses an empty sample', () => {
    expect(() => median([])).toThrow(/empty/);
    expect(() => summarize([])).toThrow(/empty/);
  });
});

describe('fmt', () => {
  it('keeps about three significant digits and separates thousands', () => {
    expect(fmt(12345.6)).toBe('12,346');
    expect(fmt(123.4)).toBe('123');
    expect(fmt(12.34)).toBe('12.3');
    expect(fmt(1.234)).toBe('1.23');
    expect(fmt(0.01234)).toBe('0.012');
    expect(fmt(0)).toBe('0');
  });
});

describe('meets', () => {
  it('checks upper and lower bounds', () => {
    expect(meets(5, 5)).toBe(true);
    expect(meets(5.1, 5)).toBe(false);
    expect(meets(100_000, 100_000, 'ge')).toBe(true);
    expect(meets(99_999, 100_000, 'ge')).toBe(false);
  });
});

describe('fitSteps', () => {
  it('keeps 1,000 steps for a flat, cheap system', () => {
    expect(fitSteps(5, 5, 1000, 8000)).toBe(1000);
  });

  it('scales down when the predicted run (cost growing with history) exceeds the budget', () => {
    // 1 ms/step at 10 steps, 5 ms/step at 100 steps: 1,000 steps would take ~45 s.
    const steps = fitSteps(1000, 5000, 1000, 8000);
    expect(steps).toBeLessThan(1000);
    expect(steps).toBeGreaterThanOrEqual(100);
  });

  it('never goes below 100 steps', () => {
    expect(fitSteps(1e6, 1e7, 1000, 1)).toBe(100);
  });
});
