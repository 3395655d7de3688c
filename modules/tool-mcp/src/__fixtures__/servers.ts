/** Paths of the npm test servers (devDependencies, run from node_modules: no network). */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

function binOf(pkg: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = require(manifest) as { bin: Record<string, string> };
  return path.join(path.dirname(manifest), Object.values(bin)[0]!);
}

export const EVERYTHING_BIN: string = binOf('@modelcontextprotocol/server-everything');
export const FILESYSTEM_BIN: string = binOf('@modelcontextprotocol/server-filesystem');
export const FIXTURES_DIR: string = path.dirname(fileURLToPath(import.meta.url));
/** A hostile server of this folder (`crash`, `garbage`, `silent`, `stubborn`, `changing`, `flood`). */
export function hostile(name: string): string {
  return path.join(FIXTURES_DIR, `${name}-server.mjs`);
}

/** A free TCP port on 127.0.0.1 (listen on 0, close). */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
