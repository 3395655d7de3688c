/**
 * Agent definitions (reference B1): a Markdown file whose front matter says
 * who the agent is (`meta: {name, description, ...}`, or flat `name` and
 * `description`) and what it changes in its child session (`tools`,
 * `providers`, `hooks`, `session`, `provider_preferences`, `model_role`,
 * `agents`), and whose body is its instruction (its system prompt). A
 * bundle's roster (`agents:`) names agents; `resolveAgents` fills each entry
 * from `<namespace folder>/agents/<name>.md`, only where the entry is empty.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isPlainObject, setOwn } from '@amplifier/core';
import { BundleLoadError, BundleValidationError } from './errors.js';
import type { Bundle } from './load.js';
import { type ModuleEntry, moduleList, parseYaml, splitFrontMatter } from './parse.js';
import {
  BundleReferenceError,
  FileReadError,
  type ReferenceScope,
  readRegularFile,
  referenceReader,
} from './references.js';

/** A provider an agent prefers (`model` may be a glob: `claude-haiku-*`). */
export interface AgentProviderPreference {
  provider: string;
  model?: string;
}

/** Which agents an agent may delegate to: all of the roster, none, or these names. */
export type AgentRosterFilter = 'all' | 'none' | string[];

/** One agent: what the model sees (`description`) and the overlay its child session gets. */
export interface AgentConfig {
  name: string;
  /** The one thing the model sees of the agent (the delegate tool lists it). */
  description: string;
  /** The Markdown body: the child's system prompt. */
  instruction?: string;
  tools?: ModuleEntry[];
  providers?: ModuleEntry[];
  hooks?: ModuleEntry[];
  /** Deep-merged over the parent's `session` (orchestrator and context config). */
  session?: Record<string, unknown>;
  provider_preferences?: AgentProviderPreference[];
  /** A model role, or a fallback list of roles. */
  model_role?: string | string[];
  /** The agents this agent may delegate to (default: the parent's whole roster). */
  agents?: AgentRosterFilter;
  /** The `meta` mapping as written (extra keys kept). */
  meta: Record<string, unknown>;
  /** The file the agent was read from. */
  file?: string;
  [key: string]: unknown;
}

/** Top-level keys of an agent file that are part of its overlay. */
const OVERLAY_KEYS = ['session', 'provider_preferences', 'model_role'] as const;
const MODULE_KEYS = ['tools', 'providers', 'hooks'] as const;

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The `agents:` of an agent: `all`, `none` or a list of names; another string or type throws, a mapping is ignored. */
function rosterFilter(value: unknown, file: string): AgentRosterFilter | undefined {
  if (value === undefined || value === null || isPlainObject(value)) return undefined;
  if (value === 'all' || value === 'none') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return [...value];
  throw new BundleValidationError(
    `The agent ${file} has a malformed agents: write 'all', 'none' or a list of agent names, not ${JSON.stringify(value)}.`,
  );
}

function preferences(value: unknown, file: string): AgentProviderPreference[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value : [value];
  return list.map((item, i) => {
    const entry = isPlainObject(item) ? (item as Record<string, unknown>) : {};
    if (typeof entry.provider !== 'string' || entry.provider === '') {
      throw new BundleValidationError(
        `The agent ${file} has a malformed provider_preferences[${i}]: each is {provider, model?}.`,
      );
    }
    return typeof entry.model === 'string'
      ? { provider: entry.provider, model: entry.model }
      : { provider: entry.provider };
  });
}

function modelRole(value: unknown, file: string): string | string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return [...value];
  throw new BundleValidationError(
    `The agent ${file} has a malformed model_role: a role name or a list of role names.`,
  );
}

/**
 * An agent from its front matter data and body. `fallbackName` is used when
 * the file names no agent (the file name without `.md`).
 */
export function agentFromData(
  data: Record<string, unknown>,
  instruction: string | undefined,
  file: string,
  fallbackName: string,
): AgentConfig {
  const dir = path.dirname(file);
  const meta = isPlainObject(data.meta) ? { ...(data.meta as Record<string, unknown>) } : {};
  const agent: AgentConfig = {
    name: text(meta.name) || text(data.name) || fallbackName,
    description: text(meta.description) || text(data.description),
    meta,
    file,
  };
  if (instruction !== undefined && instruction !== '') agent.instruction = instruction;
  for (const key of MODULE_KEYS) {
    if (data[key] !== undefined && data[key] !== null) agent[key] = moduleList(data[key], key, file, dir);
  }
  if (isPlainObject(data.session)) agent.session = { ...(data.session as Record<string, unknown>) };
  else if (data.session !== undefined && data.session !== null)
    throw new BundleValidationError(`The agent ${file} has a malformed session: it must be a mapping.`);
  const prefs = preferences(data.provider_preferences, file);
  if (prefs !== undefined) agent.provider_preferences = prefs;
  const role = modelRole(data.model_role, file);
  if (role !== undefined) agent.model_role = role;
  const roster = rosterFilter(data.agents, file);
  if (roster !== undefined) agent.agents = roster;
  return agent;
}

/** Parse the text of an agent file (`file` names it in errors and gives relative sources their base). */
export function parseAgentText(text: string, file: string): AgentConfig {
  const { yaml, body } = splitFrontMatter(text);
  const data = yaml === undefined ? {} : parseYaml(yaml, file);
  return agentFromData(data, body.trim() || undefined, file, path.basename(file).replace(/\.md$/i, ''));
}

/** Read one agent file (a regular file within the size cap: a FIFO or a device is refused without blocking). */
export function readAgentFile(file: string): AgentConfig {
  let content: string;
  try {
    content = readRegularFile(file);
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    throw new BundleLoadError(`Cannot read the agent ${file}: ${error.message}. Check the path.`);
  }
  return parseAgentText(content, file);
}

/** What `loadAgentDir` found: the agents by name, and the files that could not be read (with why). */
export interface AgentDirListing {
  agents: Record<string, AgentConfig>;
  problems: string[];
}

/**
 * Every `*.md` agent in a folder (not recursive), by name; a folder that does
 * not exist has none. A file that fails to parse is reported, the others load.
 * Each file goes through the reference resolver with the folder as its root:
 * a symlink out of it, a secret path or a FIFO is reported, never read.
 */
export function loadAgentDir(dir: string, scope: Partial<ReferenceScope> = {}): AgentDirListing {
  const agents: Record<string, AgentConfig> = {};
  const problems: string[] = [];
  let names: string[];
  try {
    names = fs
      .readdirSync(dir)
      .filter((n) => /\.md$/i.test(n))
      .sort();
  } catch {
    return { agents, problems };
  }
  const reader = referenceReader({ ...scope, roots: [dir, ...(scope.roots ?? [])] });
  const declaredIn = path.join(dir, '(agent folder)');
  for (const name of names) {
    try {
      const { target, text } = reader.readReference(name, declaredIn, { kind: 'agent file' });
      const agent = parseAgentText(text, target.path);
      if (!Object.hasOwn(agents, agent.name)) setOwn(agents, agent.name, agent);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  return { agents, problems };
}

/** Where a roster name's file is: `<ns folder>/agents/<name>.md` for `ns:name`, else `<base>/agents/<name>.md`. */
export function agentFileFor(name: string, bundle: Pick<Bundle, 'namespaces' | 'basePath'>): string {
  const colon = name.indexOf(':');
  if (colon > 0) {
    const root = bundle.namespaces[name.slice(0, colon)];
    if (root !== undefined) return path.join(root, 'agents', `${name.slice(colon + 1)}.md`);
    return path.join(bundle.basePath, 'agents', `${name.slice(colon + 1)}.md`);
  }
  return path.join(bundle.basePath, 'agents', `${name}.md`);
}

/**
 * The agent file of a roster name, through the reference resolver (inside the
 * bundle's roots, never a secret path, a regular file); undefined when there
 * is none. A refused name throws its `BundleReferenceError`.
 */
function agentFromFile(
  reader: ReturnType<typeof referenceReader>,
  name: string,
  bundle: Pick<Bundle, 'namespaces' | 'basePath'>,
): AgentConfig | undefined {
  const colon = name.indexOf(':');
  const ns = colon > 0 ? name.slice(0, colon) : undefined;
  const rel = `agents/${colon > 0 ? name.slice(colon + 1) : name}.md`;
  const reference = ns !== undefined && Object.hasOwn(bundle.namespaces, ns) ? `${ns}:${rel}` : rel;
  try {
    const { target, text } = reader.readReference(reference, path.join(bundle.basePath, 'bundle'), {
      kind: 'agent file',
      label: name,
    });
    return parseAgentText(text, target.path);
  } catch (error) {
    if (error instanceof BundleReferenceError && error.reason === 'missing') return undefined;
    throw error;
  }
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainObject(value)) return Object.keys(value).length === 0;
  return false;
}

/** What `resolveAgents` gives: the roster with every agent filled from its file, and what was missing. */
export interface ResolvedAgents {
  agents: Record<string, AgentConfig>;
  warnings: string[];
}

/**
 * The bundle's roster with each entry filled from its agent file (B1): the
 * file's values only fill what the roster entry leaves empty. An entry with
 * no file keeps what the bundle wrote (a warning says where it was looked for).
 */
export function resolveAgents(
  bundle: Pick<Bundle, 'agents' | 'namespaces' | 'basePath'> & { roots?: readonly string[] },
  scope: Partial<ReferenceScope> = {},
): ResolvedAgents {
  const agents: Record<string, AgentConfig> = {};
  const warnings: string[] = [];
  const reader = referenceReader({
    ...scope,
    roots: [...(bundle.roots ?? [bundle.basePath]), ...(scope.roots ?? [])],
    namespaces: bundle.namespaces,
  });
  for (const [name, entry] of Object.entries(bundle.agents)) {
    const file = agentFileFor(name, bundle);
    const fromFile = agentFromFile(reader, name, bundle);
    const inline = agentFromData(
      entry,
      typeof entry.instruction === 'string' ? entry.instruction.trim() : undefined,
      fromFile?.file ?? path.join(bundle.basePath, 'bundle'),
      name,
    );
    if (fromFile === undefined && Object.keys(entry).every((k) => k === 'name')) {
      warnings.push(`agent '${name}': no file ${file}; it runs with no instruction and no overlay`);
    }
    const merged: AgentConfig = { ...inline };
    if (fromFile !== undefined) {
      for (const [key, value] of Object.entries(fromFile)) {
        if (isEmpty(merged[key]) || (key === 'name' && merged.name === name)) setOwn(merged, key, value);
      }
    }
    // The roster key is the name the model uses (`anchors:explorer`).
    merged.name = name;
    setOwn(agents, name, merged);
  }
  return { agents, warnings };
}

/** The overlay keys of an agent (what B5 applies to the child's plan), without its identity. */
export function agentOverlay(agent: AgentConfig): Record<string, unknown> {
  const overlay: Record<string, unknown> = {};
  for (const key of [...MODULE_KEYS, ...OVERLAY_KEYS, 'agents'] as const) {
    if (agent[key] !== undefined) overlay[key] = agent[key];
  }
  return overlay;
}
