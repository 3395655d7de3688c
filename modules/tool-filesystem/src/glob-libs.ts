/**
 * picomatch and tinyglobby, imported on first use: only `glob` and `grep` (with
 * `glob` or `type`) need them, and importing them costs tens of milliseconds
 * of every session's start-up.
 */
import type picomatchFn from 'picomatch';
import type { glob as globFn } from 'tinyglobby';

/** picomatch's default export (matchers, `makeRe`, `scan`). */
export type Picomatch = typeof picomatchFn;
/** tinyglobby's `glob`. */
export type Glob = typeof globFn;

let picomatch: Promise<Picomatch> | undefined;
let glob: Promise<Glob> | undefined;

/** picomatch, imported once. */
export function loadPicomatch(): Promise<Picomatch> {
  picomatch ??= import('picomatch').then((m) => m.default);
  return picomatch;
}

/** tinyglobby's `glob`, imported once. */
export function loadGlob(): Promise<Glob> {
  glob ??= import('tinyglobby').then((m) => m.glob);
  return glob;
}
