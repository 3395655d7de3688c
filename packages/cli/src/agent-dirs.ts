/** Where agent files are read from (no bundle kit needed to know it). */
import path from 'node:path';
import { amplifierHome } from './sessions.js';

/** Folders agents are read from, first wins: the project's, then the user's. */
export function agentDirs(cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return [path.join(cwd, '.amplifier', 'agents'), path.join(amplifierHome(env), 'agents')];
}
