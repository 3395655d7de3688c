import { runInGroup } from '../../index.js';

/** `wc -w` as a tool would run it: the words of `text`, or undefined when the run failed. */
export async function countWords(text: string, signal?: AbortSignal): Promise<number | undefined> {
  const run = await runInGroup('wc', ['-w'], {
    input: text, // written to stdin, which is then closed (no input: /dev/null)
    timeoutMs: 10_000,
    graceMs: 500, // SIGTERM to the whole group, SIGKILL 0.5 s later
    signal,
    capture: { headBytes: 48 * 1024, tailBytes: 16 * 1024 }, // kept of each stream
    stopAfterBytes: 1024 * 1024, // a stream that passes 1 MB stops the command
  });
  // run.outcome: 'exited', or 'timeout' | 'aborted' | 'overflow' (the group is gone by then);
  // run.strays: it left processes in its group, and they were killed.
  if (run.outcome !== 'exited' || run.exitCode !== 0) return undefined;
  return Number(run.stdout.head.toString());
}
