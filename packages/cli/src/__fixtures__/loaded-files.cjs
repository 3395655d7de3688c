// Preloaded with NODE_OPTIONS=--require by startup.test.ts: appends the path of every file the
// process loads (CommonJS through Module#_compile, ESM through a load hook) to the file named by
// AMPLIFIER_LOADED_LIST, one per line.
const fs = require('node:fs');
const Module = require('node:module');

const list = process.env.AMPLIFIER_LOADED_LIST;
if (list) {
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    fs.appendFileSync(list, `${filename}\n`);
    return compile.call(this, content, filename);
  };
  const hooks = `import fs from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) fs.appendFileSync(${JSON.stringify(list)}, url + '\\n');
  return next(url, context);
}`;
  Module.register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}
