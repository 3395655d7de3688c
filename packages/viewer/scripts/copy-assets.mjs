#!/usr/bin/env node
// Build step: the page's static files (src/client/*.html, *.css) and the front-end libraries
// (Preact, htm: their ES module builds, as published) go into dist/, so the package serves them
// without any network access.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(root, 'package.json'));
mkdirSync(path.join(root, 'dist', 'client'), { recursive: true });
for (const name of readdirSync(path.join(root, 'src', 'client'))) {
  if (name.endsWith('.html') || name.endsWith('.css')) {
    copyFileSync(path.join(root, 'src', 'client', name), path.join(root, 'dist', 'client', name));
  }
}
const vendor = path.join(root, 'dist', 'vendor');
mkdirSync(vendor, { recursive: true });
const files = {
  'preact.mjs': 'preact',
  'hooks.mjs': 'preact/hooks',
  'htm.mjs': 'htm',
};
for (const [name, specifier] of Object.entries(files)) {
  const resolved = require.resolve(specifier);
  // htm's "main" is CommonJS; its ES module build sits next to it.
  const source = specifier === 'htm' ? path.join(path.dirname(resolved), 'htm.module.js') : resolved;
  copyFileSync(source, path.join(vendor, name));
}
