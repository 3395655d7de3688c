// A racer process for the path-race stress test. argv: <ws> <swaps>.
// In <ws>, `d` (a directory) and `file.txt` (a file) are swapped with the
// symlinks `d.link` and `file.link` (pointing outside <ws>) by rename, in a
// tight loop, <swaps> times each. Stray entries a tool created while a name
// was briefly missing are removed (they are inside <ws>). Prints
// `swaps <n>` and exits; it stops early when its stdin closes.
import fs from 'node:fs';
import path from 'node:path';

const [ws, total] = process.argv.slice(2);
const at = (name) => path.join(ws, name);
let stop = false;
process.stdin.on('close', () => {
  stop = true;
});
process.stdin.resume();

/** rename, removing a stray `to` a tool made meanwhile (only where `to` should be missing). */
function move(from, to) {
  for (;;) {
    try {
      fs.renameSync(at(from), at(to));
      return;
    } catch (error) {
      if (
        error.code !== 'ENOTDIR' &&
        error.code !== 'EISDIR' &&
        error.code !== 'ENOTEMPTY' &&
        error.code !== 'EEXIST'
      )
        throw error;
      removeStray(to);
    }
  }
}

/** Remove a stray entry; a tool may be writing into it meanwhile (ENOTEMPTY): try again. */
function removeStray(name) {
  for (;;) {
    try {
      fs.rmSync(at(name), { recursive: true, force: true });
      return;
    } catch (error) {
      if (error.code !== 'ENOTEMPTY') throw error;
    }
  }
}

let swaps = 0;
const want = Number(total);
process.stdout.write('ready\n');
while (swaps < want && !stop) {
  for (let k = 0; k < 50 && swaps < want; k++) {
    move('d', 'd.dir'); // d missing
    move('d.link', 'd'); // d -> outside
    move('d', 'd.link'); // d missing
    move('d.dir', 'd'); // d is the directory again
    move('file.txt', 'file.real');
    move('file.link', 'file.txt'); // file.txt -> outside secret
    move('file.txt', 'file.link');
    move('file.real', 'file.txt');
    swaps++;
  }
  // Let the stdin 'close' event in now and then.
  await new Promise((resolve) => setImmediate(resolve));
}
process.stdout.write(`swaps ${swaps}\n`, () => process.exit(0));
