/**
 * Does the running core satisfy a module's `@amplifier/core` peer range? The
 * ranges packages publish are nearly always one or two plain comparators
 * (`^X.Y.Z`, `~X.Y.Z`, `>=X.Y.Z <A.B.C`, `X.Y.Z`), which are decided here
 * with semver's rules; anything else goes to the `semver` package, required on
 * first need (setting up its regular expressions costs ~15 ms of start-up).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

type Version = readonly [number, number, number];

const NUMBER = '(0|[1-9]\\d{0,14})';
const PLAIN_VERSION = new RegExp(`^${NUMBER}\\.${NUMBER}\\.${NUMBER}$`);
const COMPARATOR = new RegExp(`^(\\^|~|>=|<=|>|<|=)?${NUMBER}\\.${NUMBER}\\.${NUMBER}$`);

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Whether plain version `v` passes one comparator (`^` and `~` as their `>= <` pairs). */
function passes(v: Version, operator: string, c: Version): boolean {
  const [major, minor, patch] = c;
  const order = compare(v, c);
  switch (operator) {
    case '^': {
      const high: Version = major > 0 ? [major + 1, 0, 0] : minor > 0 ? [0, minor + 1, 0] : [0, 0, patch + 1];
      return order >= 0 && compare(v, high) < 0;
    }
    case '~':
      return order >= 0 && compare(v, [major, minor + 1, 0]) < 0;
    case '>=':
      return order >= 0;
    case '>':
      return order > 0;
    case '<=':
      return order <= 0;
    case '<':
      return order < 0;
    default:
      return order === 0;
  }
}

/**
 * `semver.satisfies(version, range, { includePrerelease: true })`, or
 * undefined when `semver.validRange(range)` is null (an invalid range).
 */
export function satisfiesRange(version: string, range: string): boolean | undefined {
  const plain = PLAIN_VERSION.exec(version);
  const comparators = range.split(' ');
  if (plain !== null && comparators.length <= 2) {
    const v: Version = [Number(plain[1]), Number(plain[2]), Number(plain[3])];
    let all = true;
    let simple = true;
    for (const comparator of comparators) {
      const m = COMPARATOR.exec(comparator);
      if (m === null) {
        simple = false;
        break;
      }
      // The upper bound of ^/~ is `<X.Y.Z-0`; a release below X.Y.Z is below X.Y.Z-0 too, so
      // includePrerelease changes nothing for a plain version.
      if (!passes(v, m[1] ?? '=', [Number(m[2]), Number(m[3]), Number(m[4])])) all = false;
    }
    if (simple) return all;
  }
  const semver = require('semver') as typeof import('semver');
  if (semver.validRange(range) === null) return undefined;
  return semver.satisfies(version, range, { includePrerelease: true });
}
