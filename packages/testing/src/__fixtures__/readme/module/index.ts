import { type Cleanup, type Coordinator, ownConfig, type Tool } from '@amplifier/core';

/** Mounts the `hello` tool. Config: `{ greeting?: string }` (default "Hello"). */
export async function mount(coordinator: Coordinator, raw: Record<string, unknown>): Promise<Cleanup> {
  // Own properties only: a key inherited from a prototype is never a setting.
  const config = ownConfig(raw, 'hello');
  if (config.greeting !== undefined && typeof config.greeting !== 'string') {
    // Bad config fails mount with a message that says what to change.
    throw new Error(`hello: config.greeting must be a string, got ${JSON.stringify(config.greeting)}`);
  }
  const greeting = config.greeting ?? 'Hello';
  const hello: Tool = {
    name: 'hello',
    description: 'Greets a person by name.',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    async execute(input) {
      if (typeof input.name !== 'string') return { success: false, error: { message: 'name is required' } };
      return { success: true, output: `${greeting}, ${input.name}!` };
    },
  };
  coordinator.mount('tools', hello);
  return () => coordinator.unmount('tools', { name: 'hello' });
}
