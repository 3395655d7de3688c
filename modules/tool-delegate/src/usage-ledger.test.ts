import { expect, it } from 'vitest';
import { formatUsd } from './usage-ledger.js';

it('formats dollars as session.cost decimal strings (no exponent, no float noise)', () => {
  expect(formatUsd(0.1 + 0.2)).toBe('0.3');
  expect(formatUsd(1e-7)).toBe('0.0000001');
  expect(formatUsd(0)).toBe('0');
  expect(formatUsd(12)).toBe('12');
});
