/**
 * The page's files, shipped in the package's `dist/`: `client/` (the page,
 * compiled from `src/client`), `model/` (shared with the server) and
 * `vendor/` (Preact and htm, copied at build time). Only those folders and
 * only known file types are served; nothing is fetched from the network.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};
const FOLDERS = new Set(['client', 'model', 'vendor']);

/** The `dist/` folder holding the page: next to this file once built, else the package's. */
export function assetRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '..'), path.resolve(here, '..', '..', 'dist')];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'client', 'app.js')));
  if (found === undefined) {
    throw new Error(
      `The viewer's page is not built (no client/app.js in ${candidates.join(' or ')}). Run: pnpm --filter @amplifier/viewer build`,
    );
  }
  return found;
}

export interface Asset {
  body: Buffer;
  type: string;
}

/** The file for `/assets/<rel>`, or undefined (unknown folder or type, `..`, missing). */
export function readAsset(root: string, rel: string): Asset | undefined {
  const parts = rel.split('/');
  if (
    !FOLDERS.has(parts[0] ?? '') ||
    parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\'))
  ) {
    return undefined;
  }
  const type = TYPES[path.extname(rel)];
  if (type === undefined) return undefined;
  const file = path.join(root, ...parts);
  try {
    return { body: fs.readFileSync(file), type };
  } catch {
    return undefined;
  }
}
