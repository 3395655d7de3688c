import fc from 'fast-check';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { satisfiesRange } from './peer-range.js';

/** What the loader asked semver before: undefined for an invalid range. */
function bySemver(version: string, range: string): boolean | undefined {
  if (semver.validRange(range) === null) return undefined;
  return semver.satisfies(version, range, { includePrerelease: true });
}

const part = fc.oneof(fc.constantFrom('0', '1', '2', '10', '01', '99'), fc.nat(12).map(String));
const triple = fc.tuple(part, part, part).map((p) => p.join('.'));
const version = fc.oneof(
  triple,
  triple.map((v) => `${v}-rc.1`),
  triple.map((v) => `${v}+build`),
);
const range = fc.oneof(
  fc
    .tuple(fc.constantFrom('', '^', '~', '>=', '<', '=', ' ^', 'v', '^v'), triple)
    .map(([op, v]) => `${op}${v}`),
  fc.tuple(triple, triple).map(([a, b]) => `^${a} || ~${b}`),
  fc
    .tuple(
      fc.constantFrom('>=', '>', '', '^', '~', '<='),
      triple,
      fc.constantFrom('<', '<=', '>', ' <', ''),
      triple,
    )
    .map(([op1, a, op2, b]) => `${op1}${a} ${op2}${b}`),
  fc.constantFrom('*', 'x', '1.x', '^1', '~1.2', '>=1.0.0 <2.0.0', '^2.0.0-0', 'not a range!', ''),
);

describe('satisfiesRange', () => {
  it('answers as semver.satisfies (includePrerelease) and validRange do, for any version and range', () => {
    fc.assert(
      fc.property(version, range, (v, r) => {
        expect(satisfiesRange(v, r), `${v} in ${r}`).toBe(bySemver(v, r));
      }),
      { numRuns: 3000 },
    );
  });

  it('decides the usual published ranges of plain versions (caret on 0.x, tilde, >= <, exact)', () => {
    const cases: [string, string, boolean][] = [
      ['0.1.0', '^0.1.0', true],
      ['0.1.9', '^0.1.0', true],
      ['0.2.0', '^0.1.0', false],
      ['0.0.3', '^0.0.3', true],
      ['0.0.4', '^0.0.3', false],
      ['1.9.0', '^1.2.3', true],
      ['2.0.0', '^1.2.3', false],
      ['1.2.9', '~1.2.3', true],
      ['1.3.0', '~1.2.3', false],
      ['5.0.0', '>=1.2.3', true],
      ['1.2.3', '1.2.3', true],
      ['1.2.4', '1.2.3', false],
      ['0.1.0', '>=0.1.0 <1.0.0', true],
      ['0.9.9', '>=0.1.0 <1.0.0', true],
      ['1.0.0', '>=0.1.0 <1.0.0', false],
      ['0.0.9', '>=0.1.0 <1.0.0', false],
    ];
    for (const [v, r, expected] of cases) {
      expect(satisfiesRange(v, r), `${v} in ${r}`).toBe(expected);
      expect(bySemver(v, r), `semver: ${v} in ${r}`).toBe(expected);
    }
  });
});
