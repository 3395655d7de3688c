/**
 * `amplifier view` and `amplifier-view`: start the viewer, print its URL,
 * open the browser unless told not to, and serve until the process is
 * interrupted (Ctrl+C closes the server and ends with code 0).
 */
import { resolveServiceToken, writeRuntimeFile } from '@amplifier/server';
import { openBrowser } from './server/open-browser.js';
import { startViewer, type Viewer } from './server/server.js';

export interface ServeOptions {
  home?: string;
  port?: number;
  /** Open the desktop's browser (default true). */
  open?: boolean;
  /** Where the URL and notes go (default stderr). */
  log?: (line: string) => void;
  /** The token (`--token`; default $AMPLIFIER_VIEW_TOKEN, else 256 new random bits). */
  token?: string;
  /** Where AMPLIFIER_VIEW_TOKEN, XDG_RUNTIME_DIR and AMPLIFIER_HOME are read (default process.env). */
  env?: NodeJS.ProcessEnv;
}

/** The environment variable that may hold the viewer's token. */
export const VIEW_TOKEN_ENV = 'AMPLIFIER_VIEW_TOKEN';

/** Parses a `--port` value: 0 to 65535. Throws an error saying what to pass. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) {
    throw new Error(`--port must be a number from 0 to 65535 (0: any free port), not '${value}'.`);
  }
  return port;
}

export interface Serving {
  viewer: Viewer;
  /** Resolves once Ctrl+C (SIGINT) or SIGTERM has closed the server. */
  done: Promise<void>;
}

export async function serveSessions(options: ServeOptions = {}): Promise<Serving> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const env = options.env ?? process.env;
  const { token } = resolveServiceToken({
    service: 'amplifier view',
    host: '127.0.0.1',
    flag: options.token,
    envName: VIEW_TOKEN_ENV,
    env,
  });
  let viewer: Viewer;
  try {
    viewer = await startViewer({
      token,
      ...(options.home !== undefined && { home: options.home }),
      ...(options.port !== undefined && { port: options.port }),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new Error(`Port ${options.port} is in use. Pass another --port, or --port 0 for any free port.`);
    }
    throw error;
  }
  log(`Sessions under ${viewer.home}`);
  log(`Viewer: ${viewer.tokenUrl}  (Ctrl+C to stop)`);
  let runtime: { path: string; remove(): void } | undefined;
  try {
    runtime = writeRuntimeFile(
      `view-${viewer.port}`,
      { service: 'view', url: viewer.tokenUrl, token: viewer.token, pid: process.pid },
      env,
    );
    log(`(URL and token also in ${runtime.path}, mode 0600)`);
  } catch (error) {
    log(`note: could not write the runtime file (${(error as Error).message})`);
  }
  if (options.open !== false) openBrowser(viewer.tokenUrl, (message) => log(`note: ${message}`));
  const done = new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      runtime?.remove();
      void viewer.close().then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return { viewer, done };
}
