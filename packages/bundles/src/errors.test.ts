import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AmplifierError } from '@amplifier/core';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  BUNDLE_ERRORS,
  BundleDependencyError,
  BundleError,
  BundleLoadError,
  BundleNotFoundError,
  BundleValidationError,
} from './errors.js';
import { loadBundle } from './load.js';

const dir = mkdtempSync(path.join(tmpdir(), 'bundle-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bundle errors are declared in core’s error factory', () => {
  it('each class has its BUNDLE_* code, its name, and is an AmplifierError and a BundleError', () => {
    const cases: [BundleError, string, string][] = [
      [new BundleError('m'), 'BUNDLE_ERROR', 'BundleError'],
      [new BundleNotFoundError('m'), 'BUNDLE_NOT_FOUND', 'BundleNotFoundError'],
      [new BundleLoadError('m'), 'BUNDLE_LOAD_FAILED', 'BundleLoadError'],
      [new BundleValidationError('m'), 'BUNDLE_INVALID', 'BundleValidationError'],
      [new BundleDependencyError('m'), 'BUNDLE_DEPENDENCY_FAILED', 'BundleDependencyError'],
    ];
    for (const [error, code, name] of cases) {
      expect(error).toBeInstanceOf(AmplifierError);
      expect(error).toBeInstanceOf(BundleError);
      expect(error).toMatchObject({ code, name, message: 'm' });
      expect(BUNDLE_ERRORS.codes[error.code].name).toBe(name);
      expect(AmplifierError.is(error, error.code)).toBe(true);
      expect(BundleError.is(error)).toBe(true);
    }
    expect(Object.keys(BUNDLE_ERRORS.codes).sort()).toEqual(cases.map(([, code]) => code).sort());
    expect(BundleError.is(new AmplifierError('MOUNT_FAILED', 'x'))).toBe(false);
    expect(BundleError.is(Object.assign(new Error('x'), { name: 'BundleError', code: 'BUNDLE_ERROR' }))).toBe(
      false,
    );
  });

  it('a missing bundle throws BUNDLE_NOT_FOUND, and the error crosses JSON with its code and problems', async () => {
    const error = await loadBundle(path.join(dir, 'nope.md')).catch((e: unknown) => e);
    expect(AmplifierError.is(error, 'BUNDLE_NOT_FOUND')).toBe(true);
    const data = JSON.parse(JSON.stringify(error)) as Record<string, unknown>;
    expect(data).toMatchObject({ code: 'BUNDLE_NOT_FOUND', name: 'BundleNotFoundError', problems: [] });
  });

  it('BundleError.is recognises an error from a second copy of the package', async () => {
    vi.resetModules();
    const copy = (await import('./errors.js')) as typeof import('./errors.js');
    const foreign = new copy.BundleLoadError('elsewhere');
    expect(foreign).not.toBeInstanceOf(BundleError);
    expect(BundleError.is(foreign)).toBe(true);
    expect(BUNDLE_ERRORS.is(foreign, 'BUNDLE_LOAD_FAILED')).toBe(true);
  });

  it('an unknown bundle code is a type error', () => {
    // @ts-expect-error: not a code of BUNDLE_ERRORS
    expect(BUNDLE_ERRORS.is(new BundleError('m'), 'BUNDLE_NOT_FOND')).toBe(false);
  });
});
