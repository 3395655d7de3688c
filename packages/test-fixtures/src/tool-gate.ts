/**
 * Tests that need something the machine may lack (git, python3, openssl,
 * util-linux `script`, `/proc`, the Restate server binary, a second local
 * user) skip without it, saying what is missing. Under
 * `AMPLIFIER_REQUIRE_TOOLS=1` (set by CI, which provides all of them) a
 * missing one is an error instead, thrown while the test file is collected,
 * so the file fails and a CI run can never pass by skipping them.
 */

/** The environment variable that turns a missing tool into a failure. */
export const REQUIRE_TOOLS_VARIABLE = 'AMPLIFIER_REQUIRE_TOOLS';

/**
 * Whether to skip the tests that need `what`: false when `available`; when it
 * is missing, true (after one line on stderr naming it), or an Error thrown
 * when `AMPLIFIER_REQUIRE_TOOLS=1`. `why` says how to get it.
 *
 * @example describe.skipIf(skipUnless(hasGit, 'git on PATH'))('git sources', ...)
 */
export function skipUnless(available: boolean, what: string, why?: string): boolean {
  if (available) return false;
  const detail = why === undefined ? '' : ` (${why})`;
  if (process.env[REQUIRE_TOOLS_VARIABLE] === '1') {
    throw new Error(
      `${REQUIRE_TOOLS_VARIABLE}=1 but ${what} is missing here${detail}: install it or unset ${REQUIRE_TOOLS_VARIABLE} to skip these tests`,
    );
  }
  process.stderr.write(`skipping the tests that need ${what}: it is missing here${detail}\n`);
  return true;
}
