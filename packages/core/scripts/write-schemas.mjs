#!/usr/bin/env node
/**
 * Writes `schemas/<name>.json` from the schemas in core's TypeScript (the one
 * source of the data types and of these files), as `loadSchema` returns them.
 * Run after a build when a schema changed: `pnpm --filter @amplifier/core run schemas`
 * (core's tests fail while a file is out of date). Objects and lists that fit
 * on one line are written on one line, as biome formats them.
 */
import fs from 'node:fs';
import { DATA_SCHEMA_NAMES, loadSchema } from '../dist/index.js';

const WIDTH = 110;

/** `value` on one line, spaced as biome writes JSON. */
function inline(value) {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const entries = Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${inline(item)}`);
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}

/** `value` as JSON text at column `indent`, after `used` characters on its line (its key, a comma). */
function format(value, indent, used) {
  const flat = inline(value);
  if (typeof value !== 'object' || value === null || indent + used + flat.length <= WIDTH) return flat;
  const inner = ' '.repeat(indent + 2);
  const parts = Array.isArray(value)
    ? value.map((item) => inner + format(item, indent + 2, 1))
    : Object.entries(value).map(([key, item]) => {
        const head = `${JSON.stringify(key)}: `;
        return inner + head + format(item, indent + 2, head.length + 1);
      });
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${parts.join(',\n')}\n${' '.repeat(indent)}${close}`;
}

for (const name of DATA_SCHEMA_NAMES) {
  const file = new URL(`../schemas/${name}.json`, import.meta.url);
  fs.writeFileSync(file, `${format(loadSchema(name), 0, 0)}\n`);
}
process.stdout.write(`wrote ${DATA_SCHEMA_NAMES.length} schemas to schemas/\n`);
