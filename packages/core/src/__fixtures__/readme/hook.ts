// #region readme
import { events, HookRegistry } from '../../index.js';

const hooks = new HookRegistry();

// Lower priority runs first. Returning nothing means "continue".
hooks.register(
  events.TOOL_PRE,
  (_event, data) => {
    // data is a ToolPreEvent: tool_name is a string, tool_input a record.
    if (data.tool_name === 'bash' && String(data.tool_input.command).includes('rm -rf')) {
      return { action: 'deny', reason: 'rm -rf is not allowed' };
    }
  },
  { priority: 10, name: 'no-rm-rf' },
);

// `modify` hands new data to the handlers after it (and back to the emitter).
hooks.register(events.TOOL_PRE, (_event, data) => ({ action: 'modify', data: { ...data, checked: true } }), {
  priority: 20,
  name: 'mark-checked',
});

const denied = await hooks.emit(events.TOOL_PRE, { tool_name: 'bash', tool_input: { command: 'rm -rf /' } });
// denied: { action: 'deny', reason: 'rm -rf is not allowed' }   (later handlers never ran)

const allowed = await hooks.emit(events.TOOL_PRE, { tool_name: 'bash', tool_input: { command: 'ls' } });
// allowed.action === 'continue'; allowed.data: { tool_name, tool_input, timestamp: '...+00:00', checked: true }

hooks.listHandlers(events.TOOL_PRE); // { 'tool:pre': ['no-rm-rf', 'mark-checked'] }

// #endregion

export { allowed, denied, hooks };
