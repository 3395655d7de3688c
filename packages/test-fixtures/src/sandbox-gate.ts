/**
 * Whether the OS-sandbox tests run here. Without a working bubblewrap they
 * are skipped (the suite title says why), unless `AMPLIFIER_REQUIRE_SANDBOX=1`
 * (set by CI, which installs bubblewrap): then `required` is set and a test
 * registered with it fails, so a CI run can never skip them silently.
 */
export interface SandboxGate {
  /** Run the sandbox tests. */
  run: boolean;
  /** Set when they cannot run but must: a message for a failing test. */
  required: string | undefined;
  /** A suite title naming the skip reason when skipped. */
  title(name: string): string;
}

export function sandboxGate(support: { available: boolean; reason?: string }): SandboxGate {
  const reason = support.reason ?? 'bubblewrap unavailable';
  const mustRun = process.env.AMPLIFIER_REQUIRE_SANDBOX === '1';
  return {
    run: support.available,
    required:
      !support.available && mustRun
        ? `AMPLIFIER_REQUIRE_SANDBOX=1 but the sandbox cannot run here: ${reason}`
        : undefined,
    title: (name) => (support.available ? name : `${name} (skipped: ${reason})`),
  };
}
