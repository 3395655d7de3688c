// #region readme
import { dynamicEvent, events, HookRegistry } from '../../index.js';

// A module types the events it adds (it still lists their names on `observability.events`).
declare module '../../index.js' {
  interface EventPayloads {
    'lint:finished': { file: string; problems: number; [key: string]: unknown };
  }
}

const hooks = new HookRegistry();
const tools: string[] = [];
let problems = 0;

// A handler of a canonical event gets its payload type: `data` is a ToolPreEvent.
hooks.register(events.TOOL_PRE, (_event, data) => {
  tools.push(data.tool_name); // a string, no typeof check needed
});
hooks.register('lint:finished', (_event, data) => {
  problems += data.problems; // a number
});

// `emit` checks the payload against the event's type.
await hooks.emit(events.TOOL_PRE, { tool_name: 'bash', tool_input: { command: 'ls' } });
await hooks.emit('lint:finished', { file: 'src/index.ts', problems: 2 });

// @ts-expect-error: tool_name must be a string (a compile error only: nothing is checked at run time)
await hooks.emit(events.TOOL_PRE, { tool_name: 42, tool_input: {} });

// @ts-expect-error: an event no module declared is refused
await hooks.emit('my-app:started', { pid: process.pid });

// A name known only at run time (read from a config) goes through `dynamicEvent`, with any record.
const other = await hooks.emit(dynamicEvent('my-app:started'), { pid: process.pid });

// #endregion

export { other, problems, tools };
