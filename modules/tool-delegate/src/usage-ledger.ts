/**
 * What this session's children used, reported up: a total for the tool's
 * results and, for each child that reported a cost, a `session.cost`
 * contribution named `delegate:<sub_session_id>` (the reference bridges a
 * child's cost to its parent under that name), so whoever sums a session's
 * cost (the providers' contributions) includes its children.
 */
import type { Coordinator, SpawnUsage } from '@amplifier/core';

/** The contribution channel on which providers (and now children) report their cost. */
export const SESSION_COST_CHANNEL = 'session.cost';

/** A dollar amount as the decimal string of `session.cost` (`Usage.cost_usd`): no exponent, no float noise. */
export function formatUsd(amount: number): string {
  const fixed = amount.toFixed(10);
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

export class UsageLedger {
  readonly #coordinator: Coordinator;
  readonly #children = new Map<string, SpawnUsage>();

  constructor(coordinator: Coordinator) {
    this.#coordinator = coordinator;
  }

  /** Count a child's usage (a resumed child adds to its earlier runs). */
  add(sessionId: string, usage: SpawnUsage): void {
    const known = this.#children.get(sessionId);
    if (known === undefined) {
      this.#children.set(sessionId, { ...usage });
      const name = `delegate:${sessionId}`;
      this.#coordinator.registerContributor(SESSION_COST_CHANNEL, name, () => {
        const cost = this.#children.get(sessionId)?.cost_usd;
        return cost === undefined ? null : { provider: name, cost_usd: formatUsd(cost) };
      });
      return;
    }
    known.input_tokens += usage.input_tokens;
    known.output_tokens += usage.output_tokens;
    if (usage.cost_usd !== undefined) known.cost_usd = (known.cost_usd ?? 0) + usage.cost_usd;
  }

  /** Everything the children used so far. */
  total(): SpawnUsage {
    const total: SpawnUsage = { input_tokens: 0, output_tokens: 0 };
    for (const usage of this.#children.values()) {
      total.input_tokens += usage.input_tokens;
      total.output_tokens += usage.output_tokens;
      if (usage.cost_usd !== undefined) total.cost_usd = (total.cost_usd ?? 0) + usage.cost_usd;
    }
    return total;
  }
}
