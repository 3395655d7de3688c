/**
 * Entry of the benchmark child processes: `node dist/child.js <group> <task>
 * '<json args>'` runs `tasks[task](args)` of `dist/<group>.js` and prints its
 * result with the process's peak RSS (see `runChild` in stats.ts).
 */
import { reportResult } from './stats.js';

type Task = (args: unknown) => Promise<unknown>;

const [group, task, json] = process.argv.slice(2);
if (group === undefined || task === undefined) {
  console.error('usage: node dist/child.js <group> <task> [json args]');
  process.exit(2);
}
const mod = (await import(`./${group}.js`)) as { tasks?: Record<string, Task> };
const fn = mod.tasks?.[task];
if (fn === undefined) {
  console.error(`no task '${task}' in ${group}`);
  process.exit(2);
}
reportResult(await fn(json === undefined ? {} : JSON.parse(json)));
// Some modules keep handles (worker threads, sockets) for the process's life.
process.exit(0);
