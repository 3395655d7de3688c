// A child process that mounts tool-filesystem from source and runs one
// write_file call. argv: <working dir> <file> <content bytes> [crash].
// With "crash", fsync of the temp file announces itself on stdout and never
// returns, so the parent can SIGKILL the process in the middle of a write.
import fsp from 'node:fs/promises';
import { createTestCoordinator } from '@amplifier/testing';
import { mount } from '../index.js';

const [workingDir, file, size, crash] = process.argv.slice(2);
if (crash === 'crash') {
  const probe = await fsp.open(process.execPath, 'r');
  const proto = Object.getPrototypeOf(probe);
  await probe.close();
  proto.sync = function hang() {
    setInterval(() => {}, 1000);
    process.stdout.write('SYNCING\n');
    return new Promise(() => {});
  };
}
const coordinator = createTestCoordinator({ bare: true });
await mount(coordinator, { working_dir: workingDir });
const result = await coordinator
  .get('tools', 'write_file')
  .execute({ file_path: file, content: 'n'.repeat(Number(size)) });
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
