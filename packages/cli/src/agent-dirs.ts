/** Where agent files are read from (no bundle kit needed to know it). */
import path from 'node:path';
import { amplifierHome } from './sessions.js';

/** The project's agent folder (`<cwd>/.amplifier/agents`): trust-gated, never shadows a name. */
export function projectAgentDir(cwd: string): string {
  return path.join(cwd, '.amplifier', 'agents');
}

/** Folders agents are read from, first wins: the user's, then the project's. */
export function agentDirs(cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return [path.join(amplifierHome(env), 'agents'), projectAgentDir(cwd)];
}
