import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

/** The version of `@amplifier/core` that is running (from its package.json). */
export const VERSION: string = pkg.version;
