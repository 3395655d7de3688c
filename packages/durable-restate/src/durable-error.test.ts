import { AmplifierError } from '@amplifier/core';
import { describe, expect, it } from 'vitest';
import { DURABLE_ERRORS, DurableError } from './durable-error.js';
import { TurnError } from './turn-client.js';

describe('DurableError is declared in core’s error factory', () => {
  it('every code of the table makes an AmplifierError named DurableError, also TurnError', () => {
    for (const code of Object.keys(DURABLE_ERRORS.codes) as (keyof typeof DURABLE_ERRORS.codes)[]) {
      const error = new DurableError(code, `failed: ${code}`);
      expect(error).toBeInstanceOf(AmplifierError);
      expect(error).toMatchObject({ code, name: 'DurableError', message: `failed: ${code}` });
      expect(AmplifierError.is(error, code)).toBe(true);
      expect(DURABLE_ERRORS.is(error, code)).toBe(true);
    }
    const turn = new TurnError(409, 'busy');
    expect(turn).toBeInstanceOf(DurableError);
    expect(turn).toMatchObject({ code: 'TURN_FAILED', name: 'DurableError', status: 409 });
    expect(JSON.parse(JSON.stringify(turn))).toEqual({
      code: 'TURN_FAILED',
      name: 'DurableError',
      status: 409,
    });
  });

  it('an unknown code is a type error', () => {
    // @ts-expect-error: not a code of DURABLE_ERRORS
    expect(new DurableError('RESTATE_GONE', 'x').code).toBe('RESTATE_GONE');
  });
});
