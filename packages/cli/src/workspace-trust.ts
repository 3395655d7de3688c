/**
 * Whether the workspace's `.amplifier/` is trusted for this run, and why
 * (docs/trust.md): `--trust-project` or `AMPLIFIER_TRUST_PROJECT=1` (old
 * name: `AMPLIFIER_MCP_TRUST_PROJECT=1`), else the decision stored by
 * `amplifier trust`, else, on a terminal, the answer to a question asked once;
 * without a terminal an undecided folder is untrusted. Nothing in the project
 * itself can make it trusted. Also: what the folder's `.amplifier/` holds (for
 * the question), and the one notice of what a run ignored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { terminalSafe } from '@amplifier/process/terminal';
import type { Display } from './display.js';
import { CliError, EXIT_CANCELLED } from './errors.js';
import type { IgnoredKey } from './project-config.js';
import { amplifierHome } from './sessions.js';
import {
  fingerprintsOf,
  projectFingerprint,
  readTrustStore,
  storedDecision,
  TrustStoreError,
  workspaceKey,
  writeDecision,
} from './trust-store.js';

/** The trust decision of a run. */
export interface WorkspaceTrust {
  /** The session's folder. */
  cwd: string;
  /** The workspace key: the git root's real path, else the folder's. */
  root: string;
  /** `<cwd>/.amplifier`. */
  projectDir: string;
  trusted: boolean;
  /** Why, for messages: `amplifier trust`, `--trust-project`, `no terminal to ask on`... */
  reason: string;
  /** Undecided (nothing stored, no flag, or changed since trusted): a terminal run may ask. */
  undecided: boolean;
  /** Trusted before, but its `.amplifier/` changed since. */
  changed?: boolean;
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** The environment variable that trusts the workspace, if set (the old MCP-only name is an alias). */
export function trustFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (truthy(env.AMPLIFIER_TRUST_PROJECT)) return 'AMPLIFIER_TRUST_PROJECT';
  if (truthy(env.AMPLIFIER_MCP_TRUST_PROJECT))
    return 'AMPLIFIER_MCP_TRUST_PROJECT (the old name of AMPLIFIER_TRUST_PROJECT)';
  return undefined;
}

function realOrSelf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/**
 * The decision without asking: the flag, the environment, the store (a store
 * that cannot be used is reported through `warn` and trusts nothing).
 */
export function workspaceTrust(
  cwd: string,
  options: { flag?: boolean | undefined; env?: NodeJS.ProcessEnv; warn?: (message: string) => void } = {},
): WorkspaceTrust {
  const env = options.env ?? process.env;
  const projectDir = path.join(cwd, '.amplifier');
  const root = workspaceKey(cwd);
  const base = { cwd, root, projectDir, undecided: false };
  if (realOrSelf(projectDir) === realOrSelf(amplifierHome(env))) {
    return { ...base, trusted: true, reason: 'it is your own AMPLIFIER_HOME' };
  }
  if (options.flag === true) return { ...base, trusted: true, reason: '--trust-project' };
  const fromEnv = trustFromEnv(env);
  if (fromEnv !== undefined) return { ...base, trusted: true, reason: `${fromEnv}=1` };
  let decision: ReturnType<typeof storedDecision>;
  try {
    decision = storedDecision(readTrustStore(env), root);
  } catch (error) {
    if (!(error instanceof TrustStoreError)) throw error;
    options.warn?.(error.message);
    return { ...base, trusted: false, reason: 'the trust store cannot be read' };
  }
  if (decision !== undefined && !decision.trusted) {
    return { ...base, trusted: false, reason: `you chose not to trust ${root} (amplifier trust --revoke)` };
  }
  if (decision !== undefined) {
    // Trust covers the content that was trusted: a changed (or new) .amplifier/ is undecided again.
    const now = projectFingerprint(projectDir);
    const real = realOrSelf(projectDir);
    const then =
      decision.fingerprints !== undefined && Object.hasOwn(decision.fingerprints, real)
        ? decision.fingerprints[real]
        : undefined;
    if (now === 'none' || now === then) {
      return { ...base, trusted: true, reason: `you trusted ${root} (amplifier trust)` };
    }
    return {
      ...base,
      trusted: false,
      undecided: true,
      changed: true,
      reason: `${projectDir} changed since you trusted ${root}; trust it again as it is now with: amplifier trust ${cwd}`,
    };
  }
  return { ...base, trusted: false, undecided: true, reason: 'you have not decided on it' };
}

/** For commands that only read (`bundle`, `agents`, `mcp list|test`): the decision as bundle options, never asking. */
export function readOnlyTrust(
  cwd: string,
  display: Pick<Display, 'warn'>,
): { projectTrusted: boolean; trustReason: string } {
  const trust = workspaceTrust(cwd, { warn: (m) => display.warn(m) });
  return { projectTrusted: trust.trusted, trustReason: trust.reason };
}

/** True when the folder has a `.amplifier/` with anything in it (something to trust or not). */
export function hasProjectConfig(trust: Pick<WorkspaceTrust, 'projectDir'>): boolean {
  try {
    return fs.readdirSync(trust.projectDir).length > 0;
  } catch {
    return false;
  }
}

/** What a folder's `.amplifier/` would add, by category, for the question and `amplifier trust`. */
export async function describeProject(trust: WorkspaceTrust): Promise<string[]> {
  const { loadAgentDir } = await import('@amplifier/bundles');
  const { restrictProjectAgent } = await import('./project-config.js');
  const lines: string[] = [];
  const dir = trust.projectDir;
  const listing = loadAgentDir(path.join(dir, 'agents'));
  const agents = Object.values(listing.agents);
  const loosening: IgnoredKey[] = [];
  const sources: string[] = [];
  for (const agent of agents) {
    // Against a session that mounts what the agent names: every key is checked, not only the modules.
    const mounted = (list: readonly { module?: string | undefined; id?: string | undefined }[] | undefined) =>
      (list ?? []).map((e) => ({ module: e.module ?? '', ...(e.id !== undefined && { id: e.id }) }));
    const { ignored } = restrictProjectAgent(agent, {
      trusted: false,
      workspace: trust.cwd,
      plan: {
        session: { orchestrator: 'loop-basic', context: 'context-simple' },
        tools: mounted(agent.tools),
        providers: mounted(agent.providers),
      },
    });
    for (const item of ignored) {
      if (item.key.endsWith('.source')) sources.push(`${path.basename(item.file)}: ${item.key}`);
      else loosening.push(item);
    }
  }
  if (agents.length > 0) lines.push(`agents: ${agents.map((a) => a.name).join(', ')}`);
  let bundles: string[] = [];
  try {
    bundles = fs.readdirSync(path.join(dir, 'bundles')).filter((n) => !n.startsWith('.'));
  } catch {}
  if (bundles.length > 0) lines.push(`bundles: ${bundles.join(', ')}`);
  try {
    const data = JSON.parse(fs.readFileSync(path.join(dir, 'mcp.json'), 'utf8')) as Record<string, unknown>;
    const servers = { ...(data.servers as object), ...(data.mcpServers as object) } as Record<
      string,
      unknown
    >;
    const names = Object.entries(servers).map(([name, entry]) => {
      const e = (entry ?? {}) as { command?: unknown; args?: unknown; url?: unknown };
      const what =
        typeof e.url === 'string' ? e.url : [e.command, ...(Array.isArray(e.args) ? e.args : [])].join(' ');
      return `${name} (${what.slice(0, 100)})`;
    });
    if (names.length > 0) lines.push(`MCP servers (programs it starts): ${names.join(', ')}`);
  } catch {}
  if (sources.length > 0) lines.push(`module sources (code loaded into amplifier): ${sources.join(', ')}`);
  const keys = loosening.map((i) => `${path.basename(i.file)}: ${i.key}`);
  if (keys.length > 0)
    lines.push(
      `keys an untrusted folder may not set: ${keys.slice(0, 12).join(', ')}${keys.length > 12 ? ', ...' : ''}`,
    );
  for (const problem of listing.problems) lines.push(`unreadable: ${problem}`);
  return lines;
}

/**
 * The decision for a run that may ask: an undecided folder with a
 * `.amplifier/`, on a terminal (stdin and stderr), gets one question; the
 * answer is stored. Without a terminal nothing is asked (untrusted).
 */
export async function decideWorkspaceTrust(
  cwd: string,
  options: { flag?: boolean | undefined; env?: NodeJS.ProcessEnv; display: Display },
): Promise<WorkspaceTrust> {
  const { display } = options;
  const trust = workspaceTrust(cwd, { ...options, warn: (m) => display.warn(m) });
  if (!trust.undecided) return trust;
  if (!hasProjectConfig(trust)) return trust;
  const terminal = process.stdin.isTTY === true && process.stderr.isTTY === true;
  if (!terminal) {
    return trust.changed
      ? trust
      : { ...trust, reason: 'no decision is stored, and there is no terminal to ask on' };
  }
  const items = await describeProject(trust);
  const lines = [
    ...(trust.changed ? [`${trust.projectDir} changed since you trusted it.`] : []),
    `This folder has project configuration: ${trust.projectDir}`,
    `Trusting ${trust.root} lets its .amplifier/ add to your sessions:`,
    ...(items.length > 0 ? items.map((i) => `  - ${i}`) : ['  (nothing it could add was found)']),
    'Untrusted, it may only tighten safety; its agents run with their tightening keys only.',
    'Provider endpoints and credentials never come from a project, trusted or not.',
  ];
  for (const line of lines) display.problem(terminalSafe(line));
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  let answer: string;
  try {
    answer = (await rl.question('Trust this folder? [y]es / [n]o / [q]uit: ')).trim().toLowerCase();
  } catch {
    answer = 'q';
  } finally {
    rl.close();
  }
  if (answer === 'q' || answer === 'quit')
    throw new CliError('Stopped: no decision on the folder.', EXIT_CANCELLED);
  const trusted = answer === 'y' || answer === 'yes';
  writeDecision(
    trust.root,
    {
      trusted,
      decided_at: new Date().toISOString(),
      ...(trusted && { fingerprints: fingerprintsOf([trust.projectDir]) }),
    },
    options.env,
  );
  display.problem(
    trusted
      ? `Trusted ${trust.root}. Revoke it with: amplifier trust --revoke ${trust.root}`
      : `Not trusted: ${trust.root}. Trust it later with: amplifier trust ${trust.root}`,
  );
  return {
    ...trust,
    trusted,
    undecided: false,
    reason: trusted ? `you trusted ${trust.root}` : `you chose not to trust ${trust.root}`,
  };
}

/** The one notice of a run: each ignored key with its file, then how to trust the folder. */
export function reportIgnored(
  ignored: readonly IgnoredKey[],
  trust: WorkspaceTrust | undefined,
  display: Display,
): void {
  if (ignored.length === 0) return;
  const seen = new Set<string>();
  for (const item of ignored) {
    const line = terminalSafe(`${item.file}: ${item.key} ignored: ${item.why}`);
    if (seen.has(line)) continue;
    seen.add(line);
    display.warn(line);
  }
  if (trust !== undefined && !trust.trusted) {
    display.warn(
      `The folder ${trust.root} is not trusted (${trust.reason}). If you trust its .amplifier/, run: amplifier trust ${trust.root} (or pass --trust-project for this run).`,
    );
  }
}
