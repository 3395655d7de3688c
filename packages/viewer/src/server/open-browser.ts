/**
 * Opens a URL in the desktop's browser: `open` (macOS), `cmd /c start`
 * (Windows), `xdg-open` (elsewhere). Best effort: without a browser the URL
 * printed on the terminal is the way in, so a failure is only reported.
 */
import { spawn } from 'node:child_process';

export function openBrowser(url: string, onError: (message: string) => void): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(command, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', (error) =>
      onError(`could not open a browser (${command}: ${error.message}); open the URL yourself`),
    );
    child.unref();
  } catch (error) {
    onError(`could not open a browser (${(error as Error).message}); open the URL yourself`);
  }
}
