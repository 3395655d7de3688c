/**
 * What a session's event log says, folded as records arrive (a whole log or
 * a live tail): provider calls (`llm:request` → `llm:response`, or
 * `provider:request` → `provider:response` for writers without `llm:*`),
 * tool calls (`tool:pre` → `tool:post` / `tool:error`, with the approval
 * decision and the agent session a delegate call started), token usage and
 * cost per provider call, and the errors. Shared by the server (the list's
 * totals) and the page (timeline, charts, tool calls).
 */
import { asNumber, asObject, asString, type EventRecord, errorText, field, timeOf } from './records.js';

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** US dollars, when the provider reported it (`usage.cost_usd`). */
  cost: number | null;
}

export interface ProviderCall {
  kind: 'provider';
  provider: string;
  model: string | null;
  start: number;
  end: number | null;
  status: 'ok' | 'error' | 'running';
  usage: Usage | null;
  error: string | null;
}

export interface Approval {
  decision: 'granted' | 'denied' | 'asked';
  reason: string | null;
  /** Who decided: `user`, `rule`, `session`, ... */
  source: string | null;
}

/**
 * A tool call as the event log shows it running (start, end, status, output,
 * approval): a timeline entry, not the call itself (core's `ToolCall`).
 */
export interface ToolRun {
  kind: 'tool';
  /** The call id (`tool_call_id`); writers without one get `#<n>`. */
  id: string;
  name: string;
  input: unknown;
  start: number;
  end: number | null;
  status: 'ok' | 'error' | 'denied' | 'running';
  output: unknown;
  error: string | null;
  approval: Approval | null;
  parallelGroup: string | null;
  /** The agent session a delegate call ran (`delegate:agent_spawned`). */
  subSession: string | null;
}

export interface UsageTotals extends Usage {
  calls: number;
}

function readUsage(value: unknown): Usage | null {
  const usage = asObject(value);
  if (usage === null) return null;
  return {
    input: asNumber(usage.input_tokens) ?? 0,
    output: asNumber(usage.output_tokens) ?? 0,
    cacheRead: asNumber(usage.cache_read_tokens) ?? 0,
    cacheWrite: asNumber(usage.cache_write_tokens) ?? 0,
    cost: asNumber(usage.cost_usd) ?? asNumber(usage.cost),
  };
}

export class SessionFold {
  readonly providerCalls: ProviderCall[] = [];
  readonly toolCalls: ToolRun[] = [];
  /** One line per error the log records (provider, tool, session). */
  readonly errors: { at: number | null; text: string }[] = [];
  records = 0;
  start: number | null = null;
  end: number | null = null;
  model: string | null = null;
  /** `session:end`'s status, when the log has one. */
  endStatus: string | null = null;
  #usesLlmEvents = false;
  readonly #fallbackCalls: ProviderCall[] = [];
  readonly #openLlm: ProviderCall[] = [];
  readonly #openProvider: ProviderCall[] = [];
  readonly #toolsById = new Map<string, ToolRun>();
  #unnamed = 0;

  /** The provider calls to show: `llm:*` when the log has them, else `provider:*`. */
  get calls(): ProviderCall[] {
    return this.#usesLlmEvents ? this.providerCalls : this.#fallbackCalls;
  }

  totals(): UsageTotals {
    const totals: UsageTotals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: null, calls: 0 };
    for (const call of this.calls) {
      totals.calls++;
      if (call.usage === null) continue;
      totals.input += call.usage.input;
      totals.output += call.usage.output;
      totals.cacheRead += call.usage.cacheRead;
      totals.cacheWrite += call.usage.cacheWrite;
      if (call.usage.cost !== null) totals.cost = (totals.cost ?? 0) + call.usage.cost;
    }
    return totals;
  }

  add(record: EventRecord): void {
    this.records++;
    const at = timeOf(record.ts);
    if (at !== null) {
      if (this.start === null || at < this.start) this.start = at;
      if (this.end === null || at > this.end) this.end = at;
    }
    const t = at ?? this.end ?? 0;
    switch (record.event) {
      case 'llm:request':
        this.#usesLlmEvents = true;
        this.#openLlm.push(this.#newCall(record, t));
        this.providerCalls.push(this.#openLlm.at(-1)!);
        break;
      case 'llm:response':
        this.#usesLlmEvents = true;
        this.#closeCall(this.#openLlm, this.providerCalls, record, t);
        break;
      case 'provider:request':
        this.#openProvider.push(this.#newCall(record, t));
        this.#fallbackCalls.push(this.#openProvider.at(-1)!);
        break;
      case 'provider:response':
      case 'provider:error':
        this.#closeCall(this.#openProvider, this.#fallbackCalls, record, t);
        break;
      case 'tool:pre':
        this.#toolPre(record, t);
        break;
      case 'tool:post':
      case 'tool:error':
        this.#toolEnd(record, t);
        break;
      case 'approval:required':
      case 'approval:granted':
      case 'approval:denied':
        this.#approval(record, t);
        break;
      case 'delegate:agent_spawned':
      case 'delegate:agent_resumed': {
        const call = this.#toolFor(record);
        const sub = asString(field(record, 'sub_session_id'));
        if (call !== undefined && sub !== null) call.subSession = sub;
        break;
      }
      case 'session:end':
        this.endStatus = asString(field(record, 'status')) ?? 'completed';
        break;
      default:
        if (record.event.endsWith(':error') || record.event === 'cancel:requested') {
          const text = errorText(field(record, 'error')) ?? record.event;
          this.errors.push({ at, text: `${record.event}: ${text}` });
        }
    }
  }

  #newCall(record: EventRecord, t: number): ProviderCall {
    const model = asString(field(record, 'model'));
    if (model !== null) this.model = model;
    return {
      kind: 'provider',
      provider: asString(field(record, 'provider')) ?? 'provider',
      model,
      start: t,
      end: null,
      status: 'running',
      usage: null,
      error: null,
    };
  }

  #closeCall(open: ProviderCall[], all: ProviderCall[], record: EventRecord, t: number): void {
    const provider = asString(field(record, 'provider'));
    const index = open.findIndex((c) => provider === null || c.provider === provider);
    let call: ProviderCall;
    if (index === -1) {
      // A response without its request (a log cut at the start): the bar ends where it is known.
      call = this.#newCall(record, t);
      all.push(call);
    } else {
      call = open.splice(index, 1)[0]!;
    }
    const duration = asNumber(field(record, 'duration_ms'));
    if (duration !== null && index === -1) call.start = t - duration;
    call.end = Math.max(t, call.start);
    const model = asString(field(record, 'model'));
    if (model !== null) {
      call.model = model;
      this.model = model;
    }
    call.usage = readUsage(field(record, 'usage')) ?? call.usage;
    const error = errorText(field(record, 'error'));
    const failed = field(record, 'status') === 'error' || error !== null || record.event === 'provider:error';
    call.status = failed ? 'error' : 'ok';
    if (failed) {
      call.error = error ?? 'the call failed';
      this.errors.push({ at: t, text: `${record.event} (${call.provider}): ${call.error}` });
    }
  }

  /** The tool call a record is about: by `tool_call_id`, else the latest open call of that tool. */
  #toolFor(record: EventRecord): ToolRun | undefined {
    const id = asString(field(record, 'tool_call_id'));
    if (id !== null) return this.#toolsById.get(id);
    const name = asString(field(record, 'tool_name'));
    const group = asString(field(record, 'parallel_group_id'));
    for (let i = this.toolCalls.length - 1; i >= 0; i--) {
      const call = this.toolCalls[i]!;
      if (call.end !== null || (name !== null && call.name !== name)) continue;
      if (group !== null && call.parallelGroup !== null && call.parallelGroup !== group) continue;
      return call;
    }
    return undefined;
  }

  #toolPre(record: EventRecord, t: number): void {
    const id = asString(field(record, 'tool_call_id'));
    const existing = id === null ? undefined : this.#toolsById.get(id);
    if (existing !== undefined && (existing.end === null || existing.status === 'denied')) {
      // An approval event named the call first (it is logged before tool:pre's handlers end).
      existing.start = Math.min(existing.start, t);
      existing.input = field(record, 'tool_input') ?? existing.input;
      existing.parallelGroup = asString(field(record, 'parallel_group_id'));
      return;
    }
    this.#newTool(record, t);
  }

  #newTool(record: EventRecord, t: number): ToolRun {
    const id = asString(field(record, 'tool_call_id')) ?? `#${++this.#unnamed}`;
    const call: ToolRun = {
      kind: 'tool',
      id,
      name: asString(field(record, 'tool_name')) ?? 'tool',
      input: field(record, 'tool_input') ?? null,
      start: t,
      end: null,
      status: 'running',
      output: undefined,
      error: null,
      approval: null,
      parallelGroup: asString(field(record, 'parallel_group_id')),
      subSession: null,
    };
    this.toolCalls.push(call);
    this.#toolsById.set(id, call);
    return call;
  }

  #toolEnd(record: EventRecord, t: number): void {
    // Python Amplifier's tool events carry no call id: the oldest open call of that tool.
    let call =
      asString(field(record, 'tool_call_id')) === null ? this.#oldestOpen(record) : this.#toolFor(record);
    call ??= this.#newTool(record, t);
    call.end = Math.max(t, call.start);
    const result = asObject(field(record, 'result')) ?? asObject(field(record, 'tool_result'));
    if (record.event === 'tool:error') {
      call.status = 'error';
      call.error = errorText(field(record, 'error')) ?? 'the tool failed';
      this.errors.push({ at: t, text: `tool ${call.name} (${call.id}): ${call.error}` });
      return;
    }
    if (result !== null && ('success' in result || 'output' in result || 'error' in result)) {
      call.output = result.output;
      call.status = result.success === false ? 'error' : 'ok';
      call.error =
        result.success === false ? (errorText(result.error) ?? 'the tool reported a failure') : null;
    } else {
      call.output = field(record, 'result') ?? field(record, 'tool_result');
      call.status = 'ok';
    }
  }

  #oldestOpen(record: EventRecord): ToolRun | undefined {
    const name = asString(field(record, 'tool_name'));
    return this.toolCalls.find(
      (c) => c.end === null && c.status === 'running' && (name === null || c.name === name),
    );
  }

  #approval(record: EventRecord, t: number): void {
    let call = this.#toolFor(record);
    // Approval is asked inside tool:pre's handlers, and may be logged before tool:pre itself.
    if (call === undefined && record.event === 'approval:required') call = this.#newTool(record, t);
    if (call === undefined) return;
    const decision =
      record.event === 'approval:granted'
        ? 'granted'
        : record.event === 'approval:denied'
          ? 'denied'
          : 'asked';
    call.approval = {
      decision,
      reason: asString(field(record, 'reason')) ?? asString(field(record, 'action')),
      source: asString(field(record, 'source')),
    };
    if (decision === 'denied') {
      // A denied call never runs: no tool:post follows.
      call.status = 'denied';
      call.end = Math.max(t, call.start);
      call.error = call.approval.reason;
    }
  }
}
