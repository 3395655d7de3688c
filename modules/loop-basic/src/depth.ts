/**
 * How deep tool-call arguments may nest. A model can send arguments nested
 * far deeper than any real input (100,000 levels parse fine); such a call is
 * refused before anything walks its input recursively.
 */
import { MAX_DATA_DEPTH } from '@amplifier/core';

/**
 * Levels of arrays and objects a call's arguments may have (the arguments
 * object is the first): core's `MAX_DATA_DEPTH` less the three levels of the
 * assistant message that carries them (message, `tool_calls`, the call), so
 * a call that ran is stored whole by a context that bounds messages at
 * `MAX_DATA_DEPTH`.
 */
export const MAX_ARGUMENT_DEPTH: number = MAX_DATA_DEPTH - 3;

/**
 * True when `value` nests arrays and objects more than `levels` deep (`{}` is
 * one level; strings, numbers and other leaves are none). The walk never goes
 * below `levels`, so it is bounded whatever the value; a cycle counts as too deep.
 */
export function nestedDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels <= 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (nestedDeeperThan(value[i], levels - 1)) return true;
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (Object.hasOwn(record, key) && nestedDeeperThan(record[key], levels - 1)) return true;
  }
  return false;
}
