/**
 * The strict profile measured on two corpora (issue 44, item 4):
 *
 * - `__fixtures__/real-commands.txt`: a few hundred harmless commands of the
 *   kinds found in shell histories and CI scripts (builds, git, package
 *   managers, containers, loops, arithmetic, here-strings...). Each refusal
 *   is a false positive.
 * - `__fixtures__/attack-commands.json`: the bypass attempts of safety.test.ts,
 *   the reference's blocked cases and variants hiding a command in
 *   arithmetic and in `case` patterns. Each one allowed is a miss.
 *
 * The false-positive rate may be at most 2%, and every refusal left must be
 * of the one class strict refuses by design: a command name computed at run
 * time (`$CC`, `"$PYTHON"`, `${EDITOR:-vi}`), which it cannot check and the
 * standard profile runs. Real scripts do that now and then (5 of 451 here,
 * 1.1%); 2% leaves room for that class only, and any refusal of another kind
 * fails the test at once. Misses must be zero.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type SafetyPolicy, validateCommand } from './safety.js';

const strict: SafetyPolicy = { safety_profile: 'strict' };
const MAX_FALSE_POSITIVE_RATE = 0.02;
const BY_DESIGN = /^Cannot check this command: the command name is computed at run time \(/;

const real = fs
  .readFileSync(new URL('./__fixtures__/real-commands.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'));
const attacks = JSON.parse(
  fs.readFileSync(new URL('./__fixtures__/attack-commands.json', import.meta.url), 'utf8'),
) as [command: string, why: string][];

const percent = (n: number, of: number): string => `${((100 * n) / of).toFixed(2)}% (${n}/${of})`;

describe('the strict profile on real commands and on attacks', () => {
  it('the corpora are of a useful size', () => {
    expect(real.length).toBeGreaterThanOrEqual(400);
    expect(attacks.length).toBeGreaterThanOrEqual(50);
  });

  it(`refuses at most ${MAX_FALSE_POSITIVE_RATE * 100}% of real commands, and lets no attack through`, () => {
    const refused = real
      .map((command) => ({ command, result: validateCommand(command, strict) }))
      .filter(({ result }) => !result.allowed)
      .map(({ command, result }) => `${command}  →  ${result.reason}`);
    const missed = attacks
      .filter(([command]) => validateCommand(command, strict).allowed)
      .map(([command, why]) => `${JSON.stringify(command)} (${why})`);
    console.info(
      `strict profile: false positives ${percent(refused.length, real.length)}, attacks blocked ${percent(attacks.length - missed.length, attacks.length)}`,
    );
    expect(refused.length / real.length, `refused:\n${refused.join('\n')}`).toBeLessThanOrEqual(
      MAX_FALSE_POSITIVE_RATE,
    );
    expect(missed, 'attacks allowed').toEqual([]);
    expect(
      refused.filter((line) => !BY_DESIGN.test(line.slice(line.indexOf('  →  ') + 5))),
      'refusals other than a computed command name',
    ).toEqual([]);
  });

  it('a case statement with several patterns is not refused (the false positive this corpus found)', () => {
    for (const command of [
      'case "$OSTYPE" in darwin*) echo mac ;; linux*) echo linux ;; esac',
      'case $1 in\n  start|run) npm start ;;\n  (test) npm test ;&\n  *) echo usage ;;&\nesac',
      'case "$(uname -s)" in Linux) os=linux ;; Darwin) os=mac ;; *) os=other ;; esac',
    ]) {
      expect(validateCommand(command, strict), command).toMatchObject({ allowed: true });
    }
  });
});
