/**
 * What the REPL's `/model`, `/compact`, `/agents` and `/cost` work with: the
 * session's token and cost totals (summed from its `llm:response` events), a
 * model switch for the current provider (each request asks for the chosen
 * model), and a compaction through the context manager's own contract.
 */
import type { ContextManager, Coordinator, HookRegistry, Message, Provider } from '@amplifier/core';

/** Totals of the session's model calls so far. */
export interface UsageTotals {
  calls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** US dollars, summed over the calls that reported a price (`usage.cost_usd`). */
  cost: number;
  /** Calls whose provider reported no price. */
  unpriced: number;
  /** The model of the last call, as its provider reported it. */
  lastModel: string | undefined;
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Sums `llm:response` usage as the session runs; `totals` is live. Returns the unsubscribe function too. */
export function meterUsage(hooks: HookRegistry): { totals: UsageTotals; stop: () => void } {
  const totals: UsageTotals = {
    calls: 0,
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    cost: 0,
    unpriced: 0,
    lastModel: undefined,
  };
  const stop = hooks.register(
    'llm:response',
    (_name, data) => {
      if (data.status !== 'ok') return;
      totals.calls += 1;
      if (typeof data.model === 'string' && data.model !== '') totals.lastModel = data.model;
      const usage = data.usage ?? { input_tokens: 0, output_tokens: 0 };
      totals.input += count(usage.input_tokens);
      totals.output += count(usage.output_tokens);
      totals.cacheRead += count(usage.cache_read_tokens);
      totals.cacheWrite += count(usage.cache_write_tokens);
      const cost = typeof usage.cost_usd === 'string' ? Number(usage.cost_usd) : Number.NaN;
      if (Number.isFinite(cost)) totals.cost += cost;
      else totals.unpriced += 1;
    },
    { priority: 1000, name: 'cli-repl-usage' },
  );
  return { totals, stop };
}

/** The `/cost` lines. */
export function costLines(totals: UsageTotals): string[] {
  const n = (v: number): string => v.toLocaleString('en-US');
  const lines = [
    `  calls     ${totals.calls} model call${totals.calls === 1 ? '' : 's'} this session (since the REPL started)`,
    `  tokens    ${n(totals.input)} in, ${n(totals.output)} out${
      totals.cacheRead + totals.cacheWrite > 0
        ? ` (cache: ${n(totals.cacheRead)} read, ${n(totals.cacheWrite)} written)`
        : ''
    }`,
  ];
  const priced = totals.calls - totals.unpriced;
  if (totals.calls === 0) lines.push('  cost      $0');
  else if (priced === 0) lines.push('  cost      unknown: the provider reported no price for these calls');
  else
    lines.push(
      `  cost      $${totals.cost.toFixed(4)}${totals.unpriced > 0 ? ` (${totals.unpriced} call${totals.unpriced === 1 ? '' : 's'} without a price not counted)` : ''}`,
    );
  return lines;
}

/** The provider a turn uses: the one named `preferred`, else the lowest priority (as the orchestrator picks). */
export function currentProvider(
  coordinator: Coordinator,
  preferred: string,
): { name: string; provider: Provider } | undefined {
  const providers = coordinator.get('providers');
  const named = providers.get(preferred) ?? providers.get(preferred.replace(/^provider-/, ''));
  if (named !== undefined) return { name: named.name, provider: named };
  const [first] = [...providers.values()].sort((a, b) => (a.priority ?? 100) - (b.priority ?? 100));
  return first === undefined ? undefined : { name: first.name, provider: first };
}

/** Providers put under a model switch, and the model chosen for each. */
const switched = new WeakMap<Provider, { original: Provider; model: string }>();

/** The model chosen with `/model` for this provider, if any. */
export function switchedModel(provider: Provider): string | undefined {
  return switched.get(provider)?.model;
}

/**
 * Make every request to the provider mounted as `key` ask for `model` (a
 * request that names its own model keeps it): the mounted provider is
 * replaced by a view of it whose `complete` and `stream` set `model`.
 */
export function switchModel(coordinator: Coordinator, key: string, model: string): void {
  const providers = coordinator.get('providers');
  const mounted = providers.get(key);
  if (mounted === undefined) throw new Error(`no provider is mounted as '${key}'`);
  const original = switched.get(mounted)?.original ?? mounted;
  const withModel = <R extends { model?: string | null | undefined }>(request: R): R =>
    request.model === undefined || request.model === null ? { ...request, model } : request;
  const view = new Proxy(original, {
    get(target, prop) {
      if (prop === 'complete')
        return (request: never, options: never) => target.complete(withModel(request), options);
      if (prop === 'stream' && target.stream !== undefined) {
        const stream = target.stream.bind(target);
        return (request: never, options: never) => stream(withModel(request), options);
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  switched.set(view, { original, model });
  providers.set(key, view);
}

/** The model the current provider uses: the switch, the last call's, the plan's, then the provider's default. */
export function modelOf(
  provider: Provider,
  planned: string | undefined,
  lastModel: string | undefined,
): string {
  const chosen = switchedModel(provider);
  if (chosen !== undefined) return chosen;
  if (lastModel !== undefined) return lastModel;
  if (planned !== undefined) return planned;
  const info = provider.getModelInfo?.();
  if (info?.id !== undefined) return info.id;
  const fallback = provider.getInfo().defaults?.model;
  return typeof fallback === 'string' ? fallback : 'the provider default';
}

/** A rough token count of messages (JSON length / 4), for `/compact`'s before and after. */
export function estimateTokens(messages: readonly Message[]): number {
  return Math.ceil(JSON.stringify(messages).length / 4);
}

/**
 * `/compact`: the context manager's own compacted view for a budget of half
 * the conversation's estimated size (`getMessagesForRequest`, the contract's
 * way to compact), made the conversation (`setMessages`). The transcript on
 * disk keeps every message. Returns the sizes before and after.
 */
export async function compactNow(
  context: ContextManager,
  provider: Provider | undefined,
): Promise<{ before: number; after: number; messages: [number, number] }> {
  const messages = await context.getMessages();
  const before = estimateTokens(messages);
  const view = await context.getMessagesForRequest({
    tokenBudget: Math.max(1, Math.floor(before / 2)),
    ...(provider !== undefined && { provider }),
  });
  // The view may start with a system prompt a factory made, or a compaction notice: the history keeps its own.
  const own = new Set(messages.filter((m) => m.role === 'system').map((m) => JSON.stringify(m.content)));
  const compacted = view.filter((m) => m.role !== 'system' || own.has(JSON.stringify(m.content)));
  const after = estimateTokens(compacted);
  if (after >= before) return { before, after: before, messages: [messages.length, messages.length] };
  await context.setMessages(compacted);
  return { before, after, messages: [messages.length, compacted.length] };
}

/** The agents the session can delegate to (the plan's roster), with their one-line descriptions. */
export function agentLines(config: { agents?: unknown }, delegateMounted: boolean): string[] {
  const agents =
    typeof config.agents === 'object' && config.agents !== null && !Array.isArray(config.agents)
      ? (config.agents as Record<string, unknown>)
      : {};
  const names = Object.keys(agents).sort();
  const lines: string[] = [];
  if (!delegateMounted)
    lines.push('  The delegate tool is not mounted: the model cannot delegate in this session.');
  if (names.length === 0) {
    lines.push(
      '  No agents in this session (a bundle or the agent folders add them: amplifier agents list).',
    );
    return lines;
  }
  const width = Math.min(24, Math.max(...names.map((n) => n.length)));
  for (const name of names) {
    const entry = agents[name];
    const record = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
    const meta =
      typeof record.meta === 'object' && record.meta !== null ? (record.meta as Record<string, unknown>) : {};
    const description = typeof meta.description === 'string' ? meta.description : record.description;
    const first = typeof description === 'string' ? (description.trim().split('\n')[0] ?? '') : '';
    lines.push(`  ${name.padEnd(width)}  ${first.slice(0, 100)}`);
  }
  if (delegateMounted) lines.push('  (and "self": a copy of this session)');
  return lines;
}
