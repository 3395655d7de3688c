import { describe, expect, it } from 'vitest';
import {
  AmplifierError,
  ApprovalTimeoutError,
  CancelledError,
  DataValidationError,
  errorMessage,
  errorType,
  isFatalError,
  ModuleLoadError,
  ModuleNotFoundError,
  ModuleValidationError,
  MountPlanError,
} from './errors.js';

describe('errors', () => {
  it('every kernel error is an AmplifierError with a stable code and its class name', () => {
    const cases: [AmplifierError, string, string][] = [
      [new ModuleNotFoundError('tool-x', 'not found', ['/a']), 'MODULE_NOT_FOUND', 'ModuleNotFoundError'],
      [new ModuleLoadError('tool-x', 'bad import'), 'MODULE_LOAD_FAILED', 'ModuleLoadError'],
      [
        new ModuleLoadError('tool-x', 'wrong type', { code: 'MODULE_INCOMPATIBLE' }),
        'MODULE_INCOMPATIBLE',
        'ModuleLoadError',
      ],
      [
        new ModuleValidationError('tool-x', 'failed validation'),
        'MODULE_VALIDATION_FAILED',
        'ModuleValidationError',
      ],
      [new MountPlanError('bad plan', []), 'MOUNT_PLAN_INVALID', 'MountPlanError'],
      [new DataValidationError('bad data', []), 'DATA_INVALID', 'DataValidationError'],
      [new ApprovalTimeoutError(), 'APPROVAL_TIMEOUT', 'ApprovalTimeoutError'],
      [new CancelledError(), 'CANCELLED', 'CancelledError'],
    ];
    for (const [error, code, name] of cases) {
      expect(error).toBeInstanceOf(AmplifierError);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(code);
      expect(error.name).toBe(name);
      expect(AmplifierError.is(error)).toBe(true);
    }
    const notFound = cases[0]![0] as ModuleNotFoundError;
    expect(notFound.moduleId).toBe('tool-x');
    expect(notFound.searched).toEqual(['/a']);
  });

  it('AmplifierError.is recognises errors from another copy of core (brand), not look-alikes', () => {
    const foreign = Object.assign(Object.create({ [Symbol.for('amplifier.error')]: true }), { code: 'X' });
    expect(AmplifierError.is(foreign)).toBe(true);
    expect(AmplifierError.is({ code: 'MODULE_NOT_FOUND' })).toBe(false);
    expect(AmplifierError.is(new Error('x'))).toBe(false);
    expect(AmplifierError.is(null)).toBe(false);
    // The brand does not leak into JSON.
    expect(JSON.stringify(new CancelledError('c'))).not.toContain('amplifier');
  });

  it('the cause is kept when given', () => {
    const cause = new Error('root');
    expect(new ModuleLoadError('m', 'x', { cause }).cause).toBe(cause);
    expect('cause' in new ModuleLoadError('m', 'x')).toBe(false);
  });

  it('isFatalError: CancelledError and a platform AbortError are fatal; ordinary errors are not', () => {
    expect(isFatalError(new CancelledError())).toBe(true);
    expect(isFatalError(new DOMException('x', 'AbortError'))).toBe(true);
    expect(isFatalError(AbortSignal.abort().reason)).toBe(true);
    expect(isFatalError(new Error('x'))).toBe(false);
    expect(isFatalError(new ApprovalTimeoutError())).toBe(false);
    expect(isFatalError('AbortError')).toBe(false);
    expect(isFatalError(undefined)).toBe(false);
  });

  it('errorMessage never throws and always gives text', () => {
    expect(errorMessage(new Error('boom'))).toBe('boom');
    expect(errorMessage(new TypeError(''))).toBe('TypeError');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
    expect(errorMessage(Object.create(null))).toBe('[object Object]');
    const hostile = Object.create(Error.prototype, {
      message: {
        get() {
          throw new Error('no');
        },
      },
    });
    expect(typeof errorMessage(hostile)).toBe('string');
  });

  it('errorType gives the class name, or the typeof for non-errors', () => {
    expect(errorType(new RangeError('x'))).toBe('RangeError');
    expect(errorType(new CancelledError())).toBe('CancelledError');
    expect(errorType('x')).toBe('string');
    expect(errorType(null)).toBe('object');
  });
});
