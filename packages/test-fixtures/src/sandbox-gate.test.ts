import { afterEach, describe, expect, it } from 'vitest';
import { sandboxGate } from './sandbox-gate.js';

const saved = process.env.AMPLIFIER_REQUIRE_SANDBOX;
afterEach(() => {
  if (saved === undefined) delete process.env.AMPLIFIER_REQUIRE_SANDBOX;
  else process.env.AMPLIFIER_REQUIRE_SANDBOX = saved;
});

describe('sandboxGate', () => {
  it('runs the suites when the sandbox is available, required or not', () => {
    process.env.AMPLIFIER_REQUIRE_SANDBOX = '1';
    const gate = sandboxGate({ available: true });
    expect(gate.run).toBe(true);
    expect(gate.required).toBeUndefined();
    expect(gate.title('bash in the sandbox')).toBe('bash in the sandbox');
  });

  it('skips with the reason in the title when unavailable and not required', () => {
    delete process.env.AMPLIFIER_REQUIRE_SANDBOX;
    const gate = sandboxGate({ available: false, reason: 'bwrap not found on PATH' });
    expect(gate.run).toBe(false);
    expect(gate.required).toBeUndefined();
    expect(gate.title('bash in the sandbox')).toBe('bash in the sandbox (skipped: bwrap not found on PATH)');
  });

  it('turns the skip into a failure message when AMPLIFIER_REQUIRE_SANDBOX=1 and it cannot run', () => {
    process.env.AMPLIFIER_REQUIRE_SANDBOX = '1';
    const gate = sandboxGate({ available: false });
    expect(gate.run).toBe(false);
    expect(gate.required).toBe(
      'AMPLIFIER_REQUIRE_SANDBOX=1 but the sandbox cannot run here: bubblewrap unavailable',
    );
  });
});
