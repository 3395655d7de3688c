/**
 * What a call of each tool touches, for the loop's scheduler (`resourceKeys`):
 * reads of a path, writes of a path and its ancestors, searches below a
 * directory. Keys are sandbox resource paths (`file:<path>`), so two spellings
 * of one file conflict.
 */
import path from 'node:path';
import type { ToolContext } from './config.js';

type Key<M extends 'read' | 'write'> = { key: string; mode: M };

/** A read of the file or directory `given` (none for a missing path: the call fails on its own). */
export function readKeys(ctx: ToolContext, given: unknown): Key<'read'>[] {
  return typeof given === 'string' && given !== ''
    ? [{ key: `file:${ctx.sandbox.resourcePath(given)}`, mode: 'read' }]
    : [];
}

/** A search below `given` (default: the working directory). */
export function searchKeys(ctx: ToolContext, given: unknown): Key<'read'>[] {
  return [
    {
      key: `file:${ctx.sandbox.resourcePath(typeof given === 'string' && given !== '' ? given : '.')}`,
      mode: 'read',
    },
  ];
}

/** Keys for a write: the file, and every ancestor directory (so a glob or grep over it is ordered). */
export function writeKeys(ctx: ToolContext, given: unknown): Key<'write'>[] {
  if (typeof given !== 'string' || given === '') return [];
  const keys: Key<'write'>[] = [];
  let current = ctx.sandbox.resourcePath(given);
  for (;;) {
    keys.push({ key: `file:${current}`, mode: 'write' });
    const parent = path.dirname(current);
    if (parent === current) return keys;
    current = parent;
  }
}
