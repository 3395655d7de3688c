// What `amplifier run` does to a session folder mid-turn, until it is killed: the real transcript
// writer (SessionRecord.appendMessage) and the real event logger (hooks-logging) append records
// continuously. Run by torn-session.test.ts under `prlimit --fsize=<limit>`: small records until a
// file is near the limit, then one that runs past it, so the OS stops that write mid-record. Then
// it prints how many whole records it added to each file and goes on writing (failing, as a busy
// session would) until SIGKILL.
import fs from 'node:fs';
import path from 'node:path';
import { SessionRecord } from '@amplifier/cli';
import { getEventLogger, mount } from '@amplifier/hooks-logging';
import { createTestCoordinator } from '@amplifier/testing';

const [dir, limitText] = process.argv.slice(2);
const limit = Number(limitText);
const metadata = JSON.parse(fs.readFileSync(path.join(dir, 'metadata.json'), 'utf8'));
const record = new SessionRecord(dir, metadata);
record.saveMetadata({ status: 'running', pid: process.pid });

const coordinator = createTestCoordinator({ bare: true });
coordinator.hooks.setDefaultFields({ session_id: metadata.session_id, parent_id: null });
let eventsFailed = false;
coordinator.display = {
  showMessage(message) {
    if (message.includes('cannot write')) eventsFailed = true;
  },
};
await mount(coordinator, {
  session_log_template: record.eventsPath,
  queue_full_wait_ms: 600_000,
});
const flush = () => getEventLogger(coordinator).writers[0].flush();
const size = (file) => (fs.existsSync(file) ? fs.statSync(file).size : 0);

let messages = 0;
const message = (content) => ({ role: messages % 2 === 0 ? 'user' : 'assistant', content });
while (size(record.transcriptPath) + 1000 < limit) {
  record.appendMessage(message(`message ${messages} ${'m'.repeat(100)}`));
  messages++;
}
// Past the limit: the write stops at it (a partial write, no error yet).
record.appendMessage(message(`message ${messages} ${'M'.repeat(limit)}`));

let events = 0;
while (size(record.eventsPath) + 1000 < limit) {
  await coordinator.hooks.emit('tool:post', { i: events++, pad: 'e'.repeat(100) });
  await flush();
}
await coordinator.hooks.emit('tool:post', { i: events, big: 'E'.repeat(limit) });
await flush();

for (const file of [record.transcriptPath, record.eventsPath]) {
  const bytes = fs.readFileSync(file);
  if (bytes.length !== limit || bytes.at(-1) === 0x0a) throw new Error(`${file} was not cut mid-record`);
}
if (!eventsFailed) throw new Error('the event logger did not report the failed write');
console.log(JSON.stringify({ messages, events }));
for (;;) {
  await coordinator.hooks.emit('tool:post', { i: ++events });
  try {
    record.appendMessage(message('more'));
  } catch {
    // EFBIG: the file is at the limit.
  }
  await new Promise((resolve) => setTimeout(resolve, 5));
}
