// Logs N events into the file given, through the built package (run by writer.test.ts,
// under `prlimit --fsize` to make writes fail midway). Prints "done" when it finished.
import path from 'node:path';
import { mount } from '@amplifier/hooks-logging';
import { createTestCoordinator } from '@amplifier/testing';

const [file, count] = process.argv.slice(2);
const coordinator = createTestCoordinator({ bare: true });
const cleanup = await mount(coordinator, {
  session_log_template: path.resolve(file),
  queue_max_records: 50,
  // Never drop for lack of room: this run is about write errors, not a slow disk (CI machines are loaded).
  queue_full_wait_ms: 600_000,
});
const run = process.env.BURST_RUN ?? 'run';
for (let i = 0; i < Number(count); i++) {
  await coordinator.hooks.emit('tool:post', { i, run, pad: 'p'.repeat(80) });
}
await cleanup();
console.log('done');
