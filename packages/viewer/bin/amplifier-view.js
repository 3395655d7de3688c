#!/usr/bin/env node
/**
 * The `amplifier-view` command inside the repository (the published package's bin
 * is dist/bin.js itself: see publishConfig.bin in package.json). pnpm links
 * workspace bins at install time, before anything is built: this committed
 * file is there to link (no "Failed to create bin" warning), and says to build
 * when dist/ is missing instead of failing with a module-not-found stack.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    `amplifier-view: the viewer is not built yet (${fileURLToPath(entry)} is missing). Build it first, at the repository root: pnpm build (npx -y pnpm build without pnpm installed).\n`,
  );
  process.exit(1);
}
await import(entry.href);
