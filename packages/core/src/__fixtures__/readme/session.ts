import { AmplifierSession, type MountPlan } from '../../index.js';

/** Run one turn with the modules installed in `projectDir` (npm, pnpm and yarn layouts all work). */
export async function greetAda(projectDir: string): Promise<string> {
  const plan: MountPlan = {
    session: { orchestrator: 'loop-basic', context: 'context-simple' },
    providers: [{ module: 'provider-mock' }],
    tools: [{ module: 'hello', config: { greeting: 'Welcome' } }],
  };
  // Validates the plan, loads and mounts every module; `await using` runs cleanup at scope exit.
  await using session = await AmplifierSession.create(plan, { baseDir: projectDir });
  // Aborting the signal cancels the turn immediately (tools get an aborted signal too).
  const answer = await session.execute('Greet Ada', { signal: AbortSignal.timeout(60_000) });
  return answer; // await before the scope ends: leaving it disposes the session
}
