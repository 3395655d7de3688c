/**
 * The agents a session may delegate to: the mount plan's `agents` section
 * (name -> agent config, as a bundle composes it), read through own
 * properties only. The model sees each agent's `meta.description` (a flat
 * `description` is accepted too).
 */
import { getOwn, isPlainObject, type ProviderPreference } from '@amplifier/core';

export interface RosterAgent {
  name: string;
  description: string;
  provider_preferences: ProviderPreference[] | undefined;
}

function descriptionOf(config: Record<string, unknown>): string {
  const meta = getOwn(config, 'meta');
  const fromMeta = isPlainObject(meta) ? getOwn(meta, 'description') : undefined;
  if (typeof fromMeta === 'string') return fromMeta.trim();
  const flat = getOwn(config, 'description');
  return typeof flat === 'string' ? flat.trim() : '';
}

/** `[{provider, model?}]` entries of an agent's `provider_preferences`; anything else is left out. */
export function providerPreferences(value: unknown): ProviderPreference[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: ProviderPreference[] = [];
  for (const entry of value) {
    if (!isPlainObject(entry)) continue;
    const provider = getOwn(entry, 'provider');
    const model = getOwn(entry, 'model');
    if (typeof provider !== 'string' || provider === '') continue;
    out.push(typeof model === 'string' && model !== '' ? { provider, model } : { provider });
  }
  return out.length > 0 ? out : undefined;
}

/** The roster of a mount plan's `agents` section, sorted by name. */
export function readRoster(agents: unknown): RosterAgent[] {
  if (!isPlainObject(agents)) return [];
  const roster: RosterAgent[] = [];
  for (const name of Object.keys(agents)) {
    const config = getOwn(agents, name);
    const record = isPlainObject(config) ? config : {};
    roster.push({
      name,
      description: descriptionOf(record),
      provider_preferences: providerPreferences(getOwn(record, 'provider_preferences')),
    });
  }
  return roster.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The `Available agents:` lines that end the tool's description (nothing when the roster is empty). */
export function rosterLines(roster: readonly RosterAgent[]): string {
  if (roster.length === 0) return '';
  const lines = roster.map((agent) => `- ${agent.name}: ${agent.description.replace(/\s+/g, ' ')}`);
  return `\n\nAvailable agents:\n${lines.join('\n')}`;
}
