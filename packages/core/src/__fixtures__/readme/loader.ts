import { AmplifierError, Coordinator, ModuleLoader } from '../../index.js';

export async function loadHello(projectDir: string) {
  const loader = new ModuleLoader({ baseDir: projectDir });

  // Every module the project declares as a dependency (plus AMPLIFIER_MODULES folders).
  const modules = await loader.discover();
  // [{ id: 'hello', type: 'tool', name: 'amplifier-module-hello', version: '1.0.0', path, mount_point: 'tools' }, ...]

  // Resolve, check (declared type, @amplifier/core peer range), import; mounts with this config.
  const hello = await loader.load('hello', { greeting: 'Hi' }, { type: 'tool' });
  const coordinator = new Coordinator();
  const cleanup = await hello.mount(coordinator);
  const result = await coordinator.get('tools', 'hello')?.execute({ name: 'Grace' });
  // result: { success: true, output: 'Hi, Grace!' }
  await cleanup?.();

  let notFound = '';
  try {
    await loader.load('tool-nowhere');
  } catch (error) {
    // error.code === 'MODULE_NOT_FOUND'; the message lists every place looked and the npm install line.
    if (AmplifierError.is(error)) notFound = error.code;
  }
  return { modules, result, notFound };
}
