/**
 * The environment of a child process, built from the host's under a policy.
 * Every subprocess tool (tool-bash, tool-agentpm, MCP stdio servers) uses
 * it, so one rule decides which variables hold secrets: core's `isSecretKey`,
 * the rule log redaction uses, and `isSecretValue` (a URL with a password, a
 * private key). Such a host variable reaches a child only when the policy
 * names it exactly in `pass`.
 */
import { isSecretKey, isSecretValue } from '@amplifier/core';

/** Which host variables a child process gets. */
export interface ChildEnvPolicy {
  /**
   * The host variables offered: `'all'` (the default), or a list of names
   * where a trailing `*` matches a prefix (`LC_*`). Either way a
   * secret-named variable is left out unless `pass` names it.
   */
  inherit?: 'all' | readonly string[];
  /** Host variables passed by exact name, secret-named or not: the explicit opt-in. */
  pass?: readonly string[];
  /** Values set as given, after the host's (they win); never filtered. */
  set?: Readonly<Record<string, string>>;
}

/** What `childEnvironment` returns. */
export interface ChildEnv {
  /**
   * The variables, on a null-prototype object: `child_process.spawn` copies
   * inherited keys too, so nothing but what is listed here can reach the child.
   */
  env: Record<string, string>;
  /** Secret-named host variables the policy offered but left out (names only, sorted). */
  withheld: string[];
}

/**
 * Build a child's environment from `host` (usually `process.env`):
 * 1. the offered host variables (`inherit`) that are neither secret-named nor
 *    secret-valued;
 * 2. the `pass` names that are set on the host, secret-named or not;
 * 3. `set`.
 * Only own properties of `host`, `set` and the lists are read.
 */
export function childEnvironment(host: NodeJS.ProcessEnv, policy: ChildEnvPolicy = {}): ChildEnv {
  const inherit = Object.hasOwn(policy, 'inherit') ? policy.inherit : 'all';
  const pass = new Set(Object.hasOwn(policy, 'pass') ? (policy.pass ?? []) : []);
  const offered = offeredBy(inherit ?? 'all');
  const env: Record<string, string> = Object.create(null);
  const withheld: string[] = [];
  for (const name of Object.keys(host)) {
    const value = host[name];
    if (typeof value !== 'string') continue;
    if (pass.has(name)) env[name] = value;
    else if (!offered(name)) continue;
    else if (isSecretKey(name) || isSecretValue(value)) withheld.push(name);
    else env[name] = value;
  }
  const set = Object.hasOwn(policy, 'set') ? policy.set : undefined;
  if (set !== undefined) {
    for (const name of Object.keys(set)) {
      const value = set[name];
      if (typeof value === 'string') env[name] = value;
    }
  }
  return { env, withheld: withheld.sort() };
}

/** Whether `name` matches one of `patterns`: an exact name, or `PREFIX*`. */
export function matchesEnvPattern(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith('*') ? name.startsWith(p.slice(0, -1)) : name === p));
}

function offeredBy(inherit: 'all' | readonly string[]): (name: string) => boolean {
  if (inherit === 'all') return () => true;
  const list = [...inherit];
  return (name) => matchesEnvPattern(name, list);
}
