import { afterEach, describe, expect, it, vi } from 'vitest';
import { REQUIRE_TOOLS_VARIABLE, skipUnless } from './tool-gate.js';

const saved = process.env[REQUIRE_TOOLS_VARIABLE];
afterEach(() => {
  if (saved === undefined) delete process.env[REQUIRE_TOOLS_VARIABLE];
  else process.env[REQUIRE_TOOLS_VARIABLE] = saved;
  vi.restoreAllMocks();
});

describe('skipUnless', () => {
  it('runs the tests when the tool is there, required or not', () => {
    process.env[REQUIRE_TOOLS_VARIABLE] = '1';
    expect(skipUnless(true, 'git on PATH')).toBe(false);
    delete process.env[REQUIRE_TOOLS_VARIABLE];
    expect(skipUnless(true, 'git on PATH')).toBe(false);
  });

  it('skips, naming what is missing, when not required', () => {
    delete process.env[REQUIRE_TOOLS_VARIABLE];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(skipUnless(false, 'python3 on PATH', 'apt-get install python3')).toBe(true);
    expect(write).toHaveBeenCalledWith(
      'skipping the tests that need python3 on PATH: it is missing here (apt-get install python3)\n',
    );
  });

  it('throws, naming what is missing and the switch, when AMPLIFIER_REQUIRE_TOOLS=1', () => {
    process.env[REQUIRE_TOOLS_VARIABLE] = '1';
    expect(() => skipUnless(false, 'the restate-server binary')).toThrow(
      'AMPLIFIER_REQUIRE_TOOLS=1 but the restate-server binary is missing here: install it or unset AMPLIFIER_REQUIRE_TOOLS to skip these tests',
    );
  });

  it('only the value 1 requires', () => {
    process.env[REQUIRE_TOOLS_VARIABLE] = 'true';
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(skipUnless(false, 'openssl on PATH')).toBe(true);
  });
});
