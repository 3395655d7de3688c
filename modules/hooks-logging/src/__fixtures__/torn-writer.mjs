// A session's event logger writing records continuously into the file given, through the built
// package, until it is killed (run by event-log.test.ts under `prlimit --fsize=<limit>`). Small
// records until the file is near the limit, then one that runs past it: the OS stops the write
// at the limit, mid-record. When the logger has reported that, it prints how many whole records
// it wrote and goes on logging (failing writes, as a busy session would) until SIGKILL.
import fs from 'node:fs';
import path from 'node:path';
import { getEventLogger, mount } from '@amplifier/hooks-logging';
import { createTestCoordinator } from '@amplifier/testing';

const [file, limitText] = process.argv.slice(2);
const limit = Number(limitText);
const coordinator = createTestCoordinator({ bare: true });
let failed = false;
coordinator.display = {
  showMessage(message) {
    if (message.includes('cannot write')) failed = true;
  },
};
await mount(coordinator, { session_log_template: path.resolve(file), queue_full_wait_ms: 600_000 });
const flush = () => getEventLogger(coordinator).writers[0].flush();
const size = () => (fs.existsSync(file) ? fs.statSync(file).size : 0);

let i = 0;
while (size() + 1000 < limit) {
  await coordinator.hooks.emit('tool:post', { i: i++, pad: 'p'.repeat(100) });
  await flush();
}
const whole = i;
await coordinator.hooks.emit('tool:post', { i: i++, big: 'b'.repeat(limit) });
await flush();
if (!failed) throw new Error(`expected the write past ${limit} bytes to fail; the file has ${size()} bytes`);
console.log(JSON.stringify({ whole, size: size() }));
for (;;) {
  await coordinator.hooks.emit('tool:post', { i: i++ });
  await new Promise((resolve) => setTimeout(resolve, 5));
}
