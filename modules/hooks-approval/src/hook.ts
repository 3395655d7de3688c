/**
 * The policy hook. At `tool:pre` (priority -10, before other hooks) it decides
 * each call from the rules (allow, deny, or ask a person through `ask_user`),
 * binds the decision to the call id and the args hash, emits
 * `approval:required|granted|denied` and audits it. A second handler, last on
 * `tool:pre`, sees the final input after every `modify`: if the arguments
 * changed, the approval does not carry over. Answers reach it through the
 * ApprovalBridge that stands in for the app's approval provider. Every
 * internal error denies the call (fail closed).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import {
  type ApprovalProvider,
  type Coordinator,
  type EventData,
  errorMessage,
  events,
  type HookResult,
} from '@amplifier/core';
import { allowOutcome, pendingAsk, sourceOf } from './answers.js';
import { AuditLog } from './audit.js';
import { argsHash, shortHash } from './binding.js';
import { ApprovalBridge } from './bridge.js';
import { type ApprovalConfig, DEFAULT_RULES, defaultSessionDir } from './config.js';
import { type GrantMatch, GrantStore } from './grants.js';
import { APPROVAL_OPTIONS, buildPrompt, describeRule } from './prompt.js';
import { type CallCheck, DecisionRecorder } from './recorder.js';
import { compileRules, type Evaluation, evaluate } from './rules.js';
import { commandPrefixes } from './shell-match.js';

/** Checks kept for calls whose second handler has not run yet (another hook denied in between). */
const MAX_OPEN_CHECKS = 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class ApprovalHook {
  readonly config: ApprovalConfig;
  readonly #coordinator: Coordinator;
  readonly #rules: ReturnType<typeof compileRules>;
  readonly #shellTools: ReadonlySet<string>;
  readonly #recorder: DecisionRecorder;
  readonly #auditFile: string | undefined;
  #grants: GrantStore | undefined;
  readonly #checks = new Map<string, CallCheck>();
  readonly #checksByData = new WeakMap<object, CallCheck>();
  /** Hashes of the input as the orchestrator emitted it, before any hook changed it. */
  readonly #originals = new Map<string, string>();
  readonly #originalsByData = new WeakMap<object, string>();
  #bridge: ApprovalBridge | undefined;

  constructor(coordinator: Coordinator, config: ApprovalConfig) {
    this.#coordinator = coordinator;
    this.config = config;
    this.#shellTools = new Set(config.shell_tools);
    this.#rules = compileRules(
      config.rules,
      config.default_rules ? DEFAULT_RULES : [],
      this.#shellTools,
      new Set(config.path_arguments),
    );
    const warn = (message: string): void => coordinator.logger.warn(message);
    const audit = config.audit ? new AuditLog(config.audit_file, warn) : undefined;
    this.#auditFile = audit?.file;
    this.#recorder = new DecisionRecorder(coordinator, audit);
  }

  /** Where decisions are audited (undefined with `audit: false`). */
  get auditFile(): string | undefined {
    return this.#auditFile;
  }

  /** The session's grants, in the session directory (resolved on first use). */
  grants(): GrantStore {
    if (this.#grants === undefined) {
      const c = this.#coordinator;
      const given = c.getCapability<unknown>('session.directory');
      const dir =
        typeof given === 'string' && given !== '' ? given : defaultSessionDir(c.sessionId, this.workingDir());
      this.#grants = new GrantStore(path.join(dir, 'approvals.json'), c.sessionId, (m) => c.logger.warn(m));
    }
    return this.#grants;
  }

  /** The session's working directory (capability `session.working_dir`), else the process cwd. */
  workingDir(): string {
    const given = this.#coordinator.getCapability<unknown>('session.working_dir');
    return typeof given === 'string' && given !== '' ? path.resolve(given) : process.cwd();
  }

  /** Make `provider` the app's approval provider, seen through the bridge. */
  registerProvider(provider: ApprovalProvider): void {
    this.#coordinator.approval = provider;
    this.ensureBridge();
  }

  /** Wrap `coordinator.approval` (set or replaced by the app) so answers to our prompts reach us. */
  ensureBridge(): ApprovalBridge | undefined {
    const current = this.#coordinator.approval;
    if (current === undefined) return undefined;
    if (current === this.#bridge) return this.#bridge;
    const previous = this.#bridge;
    const bridge = new ApprovalBridge(
      current,
      () => this.#coordinator.cancellation.isImmediate,
      (ask) => ask.unanswered('abandoned'),
    );
    for (const ask of previous?.drain() ?? []) bridge.expect(ask);
    this.#bridge = bridge;
    this.#coordinator.approval = bridge;
    return bridge;
  }

  /** The `tool:pre` decision. Never throws: an internal error denies. */
  async onToolPre(data: EventData): Promise<HookResult | undefined> {
    try {
      return await this.#decide(data);
    } catch (error) {
      return this.#internalError(error, data);
    }
  }

  async #decide(data: EventData): Promise<HookResult | undefined> {
    const tool = data.tool_name;
    if (typeof tool !== 'string' || tool === '') {
      return { action: 'deny', reason: 'hooks-approval: a tool:pre event without a tool_name is refused' };
    }
    const input = data.tool_input ?? {};
    if (!isRecord(input)) {
      return { action: 'deny', reason: `hooks-approval: the input of ${tool} is not an object; refused` };
    }
    const given = data.tool_call_id;
    const toolCallId = typeof given === 'string' && given !== '' ? given : `unidentified-${randomUUID()}`;
    const hash = argsHash(input);
    const evaluation = evaluate(
      this.#rules,
      tool,
      input,
      this.#shellTools.has(tool),
      this.config.default_action,
      this.workingDir(),
    );
    const check: CallCheck = { tool, toolCallId, hash, input, evaluation, action: evaluation.action };
    await this.#recorder.emit(events.APPROVAL_REQUIRED, {
      tool_name: tool,
      action: this.#describeAction(tool, input),
      risk_level: this.#shellTools.has(tool) ? 'high' : 'medium',
      tool_call_id: toolCallId,
      args_hash: hash,
      rule: evaluation.rule,
    });
    if (check.action === 'ask') {
      const store = this.grants();
      await store.load();
      const grant = store.find(tool, hash, evaluation.shell);
      if (grant !== undefined) {
        check.action = 'allow';
        check.grant = grant;
      }
    }
    this.#track(check, data, typeof given === 'string' && given !== '');
    if (check.action === 'ask' && this.#takeOriginal(data) !== hash) {
      // After ask_user, core's processHookResult answers a bare continue: the orchestrator runs the
      // input it emitted, not this modified one. An approval could not be bound to what runs.
      const reason = `hooks-approval: an earlier tool:pre hook changed the arguments of call ${toolCallId} before the approval check, so an approval could not be bound to the arguments that would run; refused (give that hook a priority above ${this.config.priority})`;
      await this.#recorder.finish(check, {
        decision: 'invalidated',
        approved: false,
        scope: null,
        source: 'modified',
        reason,
      });
      return { action: 'deny', reason };
    }
    if (check.action === 'allow') {
      await this.#recorder.finish(check, allowOutcome(check));
      return undefined;
    }
    if (check.action === 'deny') {
      const reason =
        evaluation.rule === null
          ? `Denied: no rule allows ${tool} (default_action: deny)`
          : `Auto-denied by rule ${describeRule(evaluation.rule)}`;
      await this.#recorder.finish(check, {
        decision: 'denied',
        approved: false,
        scope: null,
        source: sourceOf(check),
        reason,
      });
      return { action: 'deny', reason };
    }
    return this.#ask(check);
  }

  async #ask(check: CallCheck): Promise<HookResult> {
    const bridge = this.ensureBridge();
    if (bridge === undefined) {
      const reason = 'No approval provider available';
      await this.#recorder.finish(check, {
        decision: 'denied',
        approved: false,
        scope: null,
        source: 'no_provider',
        reason,
      });
      return { action: 'deny', reason };
    }
    const shell = check.evaluation.shell;
    const prompt = buildPrompt({
      tool: check.tool,
      toolCallId: check.toolCallId,
      hash: check.hash,
      input: check.input,
      rule: check.evaluation.rule,
      shell,
      prefixes: shell ? commandPrefixes(shell) : undefined,
      maxChars: this.config.max_prompt_chars,
    });
    check.ask = pendingAsk(check, prompt, {
      recorder: this.#recorder,
      grants: () => this.grants(),
      approvalDefault: this.config.approval_default,
    });
    bridge.expect(check.ask);
    return {
      action: 'ask_user',
      approval_prompt: prompt,
      approval_options: [...APPROVAL_OPTIONS],
      approval_timeout: this.config.approval_timeout,
      approval_default: this.config.approval_default,
    };
  }

  /** The first `tool:pre` handler: remember the input as the orchestrator emitted it. */
  onOriginalInput(data: EventData): void {
    let hash: string;
    try {
      hash = isRecord(data.tool_input ?? {}) ? argsHash(data.tool_input ?? {}) : 'not an object';
    } catch {
      hash = 'unhashable';
    }
    this.#originalsByData.set(data, hash);
    const id = data.tool_call_id;
    if (typeof id !== 'string' || id === '') return;
    this.#originals.delete(id);
    this.#originals.set(id, hash);
    if (this.#originals.size > MAX_OPEN_CHECKS) this.#originals.delete(this.#originals.keys().next().value!);
  }

  #takeOriginal(data: EventData): string | undefined {
    const id = data.tool_call_id;
    if (typeof id === 'string' && id !== '') {
      const hash = this.#originals.get(id);
      this.#originals.delete(id);
      if (hash !== undefined) return hash;
    }
    return this.#originalsByData.get(data);
  }

  /** The last `tool:pre` handler: the input that will run must be the one that was decided. */
  async onFinalInput(data: EventData): Promise<HookResult | undefined> {
    try {
      return await this.#verify(data);
    } catch (error) {
      return this.#internalError(error, data);
    }
  }

  async #verify(data: EventData): Promise<HookResult | undefined> {
    const id = data.tool_call_id;
    const check =
      (typeof id === 'string' && id !== '' ? this.#checks.get(id) : undefined) ??
      this.#checksByData.get(data);
    if (check === undefined) {
      return {
        action: 'deny',
        reason:
          'hooks-approval: this call cannot be matched to its approval check (a later tool:pre hook changed its tool_call_id); refused',
      };
    }
    this.#checks.delete(check.toolCallId);
    const input = data.tool_input ?? {};
    const sameTool = data.tool_name === check.tool;
    const hash = isRecord(input) ? argsHash(input) : undefined;
    if (sameTool && hash === check.hash) return undefined;

    if (check.ask !== undefined) this.#bridge?.forget(check.ask);
    if (check.action === 'allow' && sameTool && isRecord(input)) {
      const recheck = await this.#recheck(check.tool, input, hash!);
      if (recheck !== undefined) {
        const reason = `Re-checked after a later hook changed the arguments: ${recheck.reason}`;
        const next: CallCheck = {
          ...check,
          hash: hash!,
          input,
          evaluation: recheck.evaluation,
          action: 'allow',
        };
        if (recheck.grant) next.grant = recheck.grant;
        else delete next.grant;
        await this.#recorder.finish(next, { ...allowOutcome(next), source: 'modified', reason });
        return undefined;
      }
    }
    const changed = sameTool
      ? `its arguments changed (${shortHash(check.hash)} -> ${hash === undefined ? 'not an object' : shortHash(hash)})`
      : `its tool changed (${check.tool} -> ${String(data.tool_name)})`;
    const reason = `hooks-approval: a later tool:pre hook modified call ${check.toolCallId} after the approval check: ${changed}; the decision does not carry over, refused`;
    await this.#recorder.finish(check, {
      decision: 'invalidated',
      approved: false,
      scope: null,
      source: 'modified',
      reason,
    });
    return { action: 'deny', reason };
  }

  /** Would the modified input be allowed on its own, without asking? */
  async #recheck(
    tool: string,
    input: Record<string, unknown>,
    hash: string,
  ): Promise<{ evaluation: Evaluation; grant?: GrantMatch; reason: string } | undefined> {
    const evaluation = evaluate(
      this.#rules,
      tool,
      input,
      this.#shellTools.has(tool),
      this.config.default_action,
      this.workingDir(),
    );
    if (evaluation.action === 'allow') return { evaluation, reason: 'allowed by the rules' };
    if (evaluation.action !== 'ask') return undefined;
    const grant = this.grants().find(tool, hash, evaluation.shell);
    return grant ? { evaluation, grant, reason: 'allowed by a session grant' } : undefined;
  }

  #track(check: CallCheck, data: EventData, byId: boolean): void {
    this.#checksByData.set(data, check);
    if (!byId) return;
    this.#checks.delete(check.toolCallId);
    this.#checks.set(check.toolCallId, check);
    if (this.#checks.size > MAX_OPEN_CHECKS) {
      const oldest = this.#checks.keys().next().value as string;
      this.#checks.delete(oldest);
    }
  }

  #describeAction(tool: string, input: Record<string, unknown>): string {
    if (this.#shellTools.has(tool) && typeof input.command === 'string') {
      const command = input.command.length > 500 ? `${input.command.slice(0, 500)}…` : input.command;
      return `Execute: ${command}`;
    }
    return `Execute ${tool}`;
  }

  async #internalError(error: unknown, data: EventData): Promise<HookResult> {
    try {
      return { action: 'deny', reason: await this.#recorder.internalError(error, data) };
    } catch {
      return {
        action: 'deny',
        reason: `hooks-approval: internal error, call refused: ${errorMessage(error)}`,
      };
    }
  }

  /** Record the questions never asked, wait for pending records, close the audit log. */
  async close(): Promise<void> {
    for (const ask of this.#bridge?.drain() ?? []) ask.unanswered('abandoned');
    await this.#recorder.close();
  }

  /** Put the app's own provider back if ours is still in place. */
  restoreProvider(): void {
    if (this.#bridge !== undefined && this.#coordinator.approval === this.#bridge) {
      this.#coordinator.approval = this.#bridge.inner;
    }
  }
}
