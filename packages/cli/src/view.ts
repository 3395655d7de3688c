/**
 * `amplifier view [--port <n>] [--no-open]`: the session viewer
 * (@amplifier/viewer) over the sessions under AMPLIFIER_HOME, on
 * 127.0.0.1, behind a per-start token. Imported only when the command runs;
 * serves until Ctrl+C.
 */
export interface ViewOptions {
  /** Default: any free port. */
  port?: number;
  /** Open the desktop's browser (default true). */
  open: boolean;
  /** `--token` (default $AMPLIFIER_VIEW_TOKEN, else a new one per start). */
  token?: string;
}

export async function viewCommand(options: ViewOptions): Promise<number> {
  const { serveSessions } = await import('@amplifier/viewer');
  const { done } = await serveSessions({
    ...(options.port !== undefined && { port: options.port }),
    ...(options.token !== undefined && { token: options.token }),
    open: options.open,
  });
  await done;
  return 0;
}
