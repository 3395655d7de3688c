// A session that crashes: it logs N events without giving the writer a turn (records are captured,
// not yet serialised), then an uncaught error; the process's crash handler runs the logger's
// cleanup and exits 1, as an app's last-resort handler does (run by capture.test.ts, through the
// built package).
import path from 'node:path';
import { mount } from '@amplifier/hooks-logging';
import { createTestCoordinator } from '@amplifier/testing';

const [file, count] = process.argv.slice(2);
const coordinator = createTestCoordinator({ bare: true });
const cleanup = await mount(coordinator, {
  session_log_template: path.resolve(file),
  queue_full_wait_ms: 600_000,
});
process.on('uncaughtException', async (error) => {
  await cleanup();
  console.log(`flushed after: ${error.message}`);
  process.exit(1);
});
const payload = {
  tool_input: { command: 'env' },
  result: { output: 'API_KEY=sk-abcdefghijklmnopqrstuvwxyz123456' },
};
for (let i = 0; i < Number(count); i++) await coordinator.hooks.emit('tool:post', { i, ...payload });
setImmediate(() => {
  throw new Error('the session crashed');
});
