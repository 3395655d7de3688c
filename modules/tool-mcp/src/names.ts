/**
 * Mounted tool names: `mcp_<server>_<tool>` (Amplifier's format, so mount
 * plans, approval rules and logs stay interchangeable), each part sanitized to
 * `[A-Za-z0-9_-]`; Claude Code's `mcp__<server>__<tool>` is registered as an
 * alias. A name over 64 characters (the providers' limit) or one already taken
 * (`a_b`+`c` vs `a`+`b_c`, or another module's tool) is cut to 55 and gets
 * `_` + 8 hex of a hash of `server\0tool`: deterministic, so the same server
 * and tool get the same name in every session. The wire keeps the original.
 */
import { createHash } from 'node:crypto';

export const MAX_TOOL_NAME = 64;

export function sanitizePart(part: string): string {
  const clean = part.replace(/[^A-Za-z0-9_-]/g, '_');
  return clean === '' ? '_' : clean;
}

/** The preferred name, and its Claude Code alias. */
export function preferredToolName(server: string, tool: string): { name: string; alias: string } {
  const s = sanitizePart(server);
  const t = sanitizePart(tool);
  return { name: `mcp_${s}_${t}`, alias: `mcp__${s}__${t}` };
}

/** The name with the hash suffix (always ≤ 64). */
export function hashedToolName(server: string, tool: string): string {
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${preferredToolName(server, tool).name.slice(0, 55)}_${hash}`;
}

/**
 * A free name for `server`/`tool`: the preferred one when it fits and is free,
 * else the hashed one; undefined when even that is taken (the tool is not
 * mounted, never replacing another).
 */
export function mountedToolName(
  server: string,
  tool: string,
  taken: (name: string) => boolean,
): string | undefined {
  const { name } = preferredToolName(server, tool);
  if (name.length <= MAX_TOOL_NAME && !taken(name)) return name;
  const hashed = hashedToolName(server, tool);
  return taken(hashed) ? undefined : hashed;
}
