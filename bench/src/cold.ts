/**
 * Cold start of one system: `node dist/cold.js <system>`. A fresh process
 * imports the framework and completes its first step (one echo call, then the
 * final answer); the parent stops its clock at `ready()`. For Amplifier the
 * session loads six modules from a mount plan through the loader (see
 * `coldAdapter` in adapters/amplifier.ts).
 */
import { FINAL_TEXT, Script } from './adapters/scenario.js';
import { ready, reportResult } from './stats.js';

const id = process.argv[2] ?? '';
const adapter =
  id === 'amplifier-cold'
    ? await (await import('./adapters/amplifier.js')).coldAdapter()
    : await (await import('./adapters/index.js')).systemById(id).load();
const script = new Script(1, 1);
const run = await adapter.prepare(script);
const text = await run();
if (text !== FINAL_TEXT || script.echoes !== 1) {
  throw new Error(`${id}: first step not completed (text ${JSON.stringify(text)}, ${script.echoes} echoes)`);
}
ready();
await adapter.finish?.();
reportResult({ modules: adapter.name });
process.exit(0);
