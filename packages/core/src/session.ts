/**
 * AmplifierSession: validates a mount plan, loads and mounts its modules in the
 * kernel's order, runs turns through the mounted orchestrator and tears
 * everything down (LIFO cleanups) at the end.
 */
import { randomUUID } from 'node:crypto';
import type {
  ApprovalProvider,
  DisplaySystem,
  LoadedModule,
  Logger,
  ModuleLoaderLike,
  OrchestratorRun,
  Provider,
} from './contracts.js';
import { Coordinator } from './coordinator.js';
import type { StandardSchemaV1, ToolInputOf } from './define-tool.js';
import { AmplifierError, errorMessage } from './errors.js';
import {
  CANCEL_COMPLETED,
  MODULE_ON_SESSION_READY_FAILED,
  SESSION_END,
  SESSION_FORK,
  SESSION_RESUME,
  SESSION_START,
} from './events.js';
import { ModuleLoader } from './loader/loader.js';
import { defaultLogger } from './logger.js';
import type { JSONSchema } from './messages.js';
import { type ModuleObject, moduleObjectLoader } from './module-objects.js';
import type { ModuleType, SessionStatus } from './module-types.js';
import { journaled } from './mount-journal.js';
import {
  type ModuleSpec,
  type MountPlan,
  mountPlanWarnings,
  parseMountPlan,
  resolveSessionModule,
} from './mount-plan.js';
import { redactSecrets } from './redact.js';
import { runForOutput } from './structured-output.js';

/**
 * Options of `new AmplifierSession()` and `AmplifierSession.create()`, all
 * optional: where modules are resolved from (`baseDir`, or a `loader`), the app's
 * approval provider, display and logger, the session id, the parent id of a forked
 * session, `isResumed`, and the `workingDir`.
 */
export interface SessionOptions {
  /**
   * Default: a `ModuleLoader` resolving from `baseDir`. Built before the
   * session: it needs no coordinator (each `load` gets the session's mounted
   * `module-source-resolver` as `sourceResolver`). It becomes `coordinator.loader`.
   */
  loader?: ModuleLoaderLike;
  approval?: ApprovalProvider;
  display?: DisplaySystem;
  logger?: Logger;
  /** Default: a new UUID v4. */
  sessionId?: string;
  /** Set for a child (forked) session. */
  parentId?: string | null;
  /** Emit `session:resume` instead of `session:start`. */
  isResumed?: boolean;
  /** Directory modules are resolved from (its package.json and node_modules). Default: cwd. */
  baseDir?: string;
  /**
   * Modules as objects, by the id the plan names them with (`{ 'loop-basic':
   * loopBasic }` after `import * as loopBasic from '@amplifier/loop-basic'`, or a
   * tool from `defineTool`): mounted from the object, never looked for on disk.
   * Other ids go to `loader`. Sub-sessions sharing this session's loader see them too.
   */
  modules?: Readonly<Record<string, ModuleObject>>;
  /** Registered as the `session.working_dir` capability. Default: cwd. */
  workingDir?: string;
}

/** Options of `session.execute`: a `signal` whose abort cancels the turn immediately. */
export interface ExecuteOptions {
  /** Aborting it cancels the turn immediately. */
  signal?: AbortSignal;
}

/**
 * Options of `session.execute` for a typed answer: `output` is an object
 * schema (any Standard Schema with a JSON Schema converter, or a JSON Schema);
 * the model gives the answer through a `final_answer` tool mounted for the turn.
 */
export interface ExecuteOutputOptions<S extends StandardSchemaV1 | JSONSchema> extends ExecuteOptions {
  output: S;
}

/** A module that failed to load or mount during `initialize()` (non-fatal sections only). */
export interface ModuleFailure {
  section: 'providers' | 'tools' | 'hooks';
  module: string;
  error: unknown;
}

/** Why a module that failed must stop the session, or undefined when it may be skipped. */
function requiredBecause(
  spec: ModuleSpec,
  loaded: LoadedModule | undefined,
  error: unknown,
): string | undefined {
  if (spec.required === true) return 'required: true in the mount plan';
  if (AmplifierError.is(error, 'CONFIG_REFUSED')) return 'it refused its config for safety';
  const declared =
    loaded?.required === true ||
    (AmplifierError.is(error) && (error as { required?: unknown }).required === true);
  return declared ? 'its package declares "required": true' : undefined;
}

/** Put a live Map back to an earlier copy. */
function restoreMap<V>(map: Map<string, V>, before: ReadonlyMap<string, V>): void {
  for (const name of [...map.keys()]) if (!before.has(name)) map.delete(name);
  for (const [name, value] of before) if (map.get(name) !== value) map.set(name, value);
}

/**
 * A session built from a mount plan. The constructor validates the plan (a
 * `MountPlanError` lists every problem) and keeps its own copy; `initialize()`
 * loads and mounts the orchestrator and the context (a failure is fatal), then
 * providers, tools and hooks (a failure is recorded in `failures` and the module
 * skipped, unless it is required); `execute(prompt)` runs one turn through the
 * orchestrator; `cleanup()` emits `session:end` and runs every cleanup, last
 * registered first. `AmplifierSession.create()` constructs and initializes;
 * `await using` cleans up.
 *
 * @example
 * ```ts
 * import { AmplifierSession, type MountPlan } from '@amplifier/core';
 *
 * const plan: MountPlan = {
 *   session: { orchestrator: 'loop-basic', context: 'context-simple' },
 *   providers: [{ module: 'provider-mock' }],
 *   tools: [{ module: 'tool-filesystem', config: { allowed_write_paths: ['.'] } }],
 * };
 * // Validates the plan, then loads and mounts every module installed in baseDir's project.
 * await using session = await AmplifierSession.create(plan, { baseDir: process.cwd() });
 * const answer = await session.execute('List the files here', { signal: AbortSignal.timeout(60_000) });
 * session.failures; // optional modules that could not be loaded and were skipped ([] here)
 * ```
 */
export class AmplifierSession {
  readonly sessionId: string;
  readonly parentId: string | null;
  readonly config: MountPlan;
  readonly coordinator: Coordinator;
  readonly loader: ModuleLoaderLike;
  readonly status: SessionStatus;
  /** Providers, tools and hooks that could not be loaded (they were skipped). */
  readonly failures: ModuleFailure[] = [];

  readonly #isResumed: boolean;
  readonly #logger: Logger;
  readonly #workingDir: string;
  #initialized = false;
  #initializing: Promise<void> | undefined;
  /** `initialize()` failed (with `#startError`): every later `initialize()` and `execute()` fails with it. */
  #startFailed = false;
  #startError: unknown;
  #started = false;
  /** Turns running now (`execute()`); a turn stream starts only when it is 0. */
  #turns = 0;

  /**
   * Validates the plan (throws `MountPlanError` listing every problem); loads
   * nothing yet. The session runs `parseMountPlan(plan)`: its own frozen copy of
   * the plan's data (own properties only, copied once), so later changes to
   * `plan` have no effect and inherited values never reach a module. A plan
   * that `parseMountPlan` returned is kept as it is, not validated again.
   *
   * Construction is one-directional: the loader (needs nothing of the session),
   * then the coordinator (given the loader), then the session.
   */
  constructor(plan: MountPlan, options: SessionOptions = {}) {
    const own = parseMountPlan(plan);
    this.config = own;
    this.sessionId = options.sessionId || randomUUID();
    this.parentId = options.parentId ?? null;
    this.#isResumed = options.isResumed ?? false;
    this.#logger = options.logger ?? defaultLogger;
    this.#workingDir = options.workingDir ?? process.cwd();
    this.status = { session_id: this.sessionId, started_at: new Date().toISOString(), status: 'running' };
    const loader = (): ModuleLoaderLike =>
      options.loader ?? new ModuleLoader({ baseDir: options.baseDir ?? process.cwd(), logger: this.#logger });
    this.loader = options.modules ? moduleObjectLoader(options.modules, loader) : loader();
    this.coordinator = new Coordinator({
      sessionId: this.sessionId,
      parentId: this.parentId,
      config: own,
      loader: this.loader,
      ...(options.approval && { approval: options.approval }),
      ...(options.display && { display: options.display }),
      logger: this.#logger,
    });
    this.coordinator.hooks.setDefaultFields({ session_id: this.sessionId, parent_id: this.parentId });
  }

  /** Construct and initialize; if initialization fails, what was mounted is cleaned up. */
  static async create(plan: MountPlan, options: SessionOptions = {}): Promise<AmplifierSession> {
    const session = new AmplifierSession(plan, options);
    try {
      await session.initialize();
    } catch (error) {
      await session.cleanup().catch(() => {});
      throw error;
    }
    return session;
  }

  get isInitialized(): boolean {
    return this.#initialized;
  }

  /** True while a turn runs (`execute()`); a session runs one turn at a time. */
  get isRunning(): boolean {
    return this.#turns > 0;
  }

  /**
   * Load and mount: orchestrator, context (both required), then providers,
   * tools and hooks (failures reported and skipped); then `onSessionReady`
   * callbacks in mount order; then `session:fork` for child sessions. Idempotent;
   * once it has failed, it fails again with the same error (call `cleanup()`).
   */
  initialize(): Promise<void> {
    if (this.#initialized) return Promise.resolve();
    // A failed start is final: mounting again would mount what did load twice, and a
    // required module that failed must never be followed by a turn.
    if (this.#startFailed) return Promise.reject(this.#startError);
    this.#initializing ??= this.#initialize()
      .catch((error: unknown) => {
        this.#startFailed = true;
        this.#startError = error;
        throw error;
      })
      .finally(() => {
        this.#initializing = undefined;
      });
    return this.#initializing;
  }

  async #initialize(): Promise<void> {
    const coordinator = this.coordinator;
    coordinator.registerCapability('session.working_dir', this.#workingDir);
    for (const warning of mountPlanWarnings(this.config)) {
      this.#logger.warn(`mount plan: ${warning.path || '(root)'} ${warning.message}`);
    }
    const ready: { loaded: LoadedModule; required: boolean }[] = [];

    for (const slot of ['orchestrator', 'context'] as const) {
      const { module, source, config } = resolveSessionModule(this.config, slot);
      try {
        ready.push({ loaded: await this.#mount({ module, config, source }, slot), required: true });
      } catch (error) {
        const what = slot === 'orchestrator' ? 'orchestrator' : 'context manager';
        throw new AmplifierError(
          'MOUNT_FAILED',
          `Cannot initialize without ${what}: ${errorMessage(error)}`,
          {
            cause: error,
          },
        );
      }
    }
    for (const [section, type] of [
      ['providers', 'provider'],
      ['tools', 'tool'],
      ['hooks', 'hook'],
    ] as const) {
      for (const spec of this.config[section] ?? []) {
        const seen: { loaded?: LoadedModule } = {};
        try {
          const loaded = await this.#mount(spec, type, seen);
          ready.push({ loaded, required: spec.required === true || loaded.required === true });
        } catch (error) {
          this.failures.push({ section, module: spec.module, error });
          const why = requiredBecause(spec, seen.loaded, error);
          if (why !== undefined) {
            throw new AmplifierError(
              'MOUNT_FAILED',
              `Cannot initialize: ${type} '${spec.module}' is required (${why}) and was not loaded: ${errorMessage(error)}`,
              { cause: error },
            );
          }
          this.#logger.warn(`${type} '${spec.module}' was not loaded: ${errorMessage(error)}`);
        }
      }
    }
    for (const { loaded, required } of ready) {
      if (loaded.onSessionReady === undefined) continue;
      try {
        await loaded.onSessionReady(coordinator);
      } catch (error) {
        this.#logger.warn(`onSessionReady of '${loaded.id}' failed: ${errorMessage(error)}`);
        await coordinator.hooks
          .emit(MODULE_ON_SESSION_READY_FAILED, { module_id: loaded.id, error: errorMessage(error) })
          .catch(() => {});
        if (required) {
          throw new AmplifierError(
            'MOUNT_FAILED',
            `Cannot initialize: '${loaded.id}' is required and its onSessionReady failed: ${errorMessage(error)}`,
            { cause: error },
          );
        }
      }
    }
    this.#initialized = true;
    if (this.parentId !== null) {
      await coordinator.hooks.emit(SESSION_FORK, {
        parent: this.parentId,
        session_id: this.sessionId,
        ...this.#extras(),
      });
    }
  }

  /**
   * Load and mount one module (a provider with `instance_id` is renamed after
   * mounting). When anything fails, everything the module mounted, registered
   * or contributed is undone before the error goes on (see mount-journal.ts):
   * a module that failed leaves no tool the model could call. `seen.loaded` is
   * set as soon as the module is loaded.
   */
  async #mount(
    spec: ModuleSpec,
    type: ModuleType,
    seen: { loaded?: LoadedModule } = {},
  ): Promise<LoadedModule> {
    const coordinator = this.coordinator;
    const tools = coordinator.get('tools');
    const providers = coordinator.get('providers');
    // Modules may also change the live Maps directly: those are put back from these copies.
    const toolsBefore = new Map(tools);
    const providersBefore = new Map(providers);
    try {
      return await journaled(coordinator, spec.module, this.#logger, async () => {
        // Read at each load: a resolver mounted by an earlier module serves the later ones.
        const sourceResolver = coordinator.get('module-source-resolver');
        const loaded = await this.loader.load(spec.module, spec.config ?? {}, {
          ...(spec.source !== undefined && { source: spec.source }),
          type,
          ...(sourceResolver !== undefined && { sourceResolver }),
        });
        seen.loaded = loaded;
        const cleanup = await loaded.mount(coordinator);
        coordinator.registerCleanup(cleanup);
        if (type === 'provider' && spec.instance_id !== undefined) {
          this.#renameProvider(spec, providersBefore);
        }
        return loaded;
      });
    } catch (error) {
      restoreMap(tools, toolsBefore);
      restoreMap(providers, providersBefore);
      throw error;
    }
  }

  /**
   * Move a just-mounted provider from its default name to `instance_id`; what
   * was mounted under the default name before (another instance) stays there.
   */
  #renameProvider(spec: ModuleSpec, before: ReadonlyMap<string, Provider>): void {
    const providers = this.coordinator.get('providers');
    const defaultName = spec.module.replace(/^provider-/, '');
    const instanceId = spec.instance_id as string;
    if (defaultName === instanceId) return;
    const previous = before.get(defaultName);
    const mounted = providers.get(defaultName);
    if (mounted === undefined || mounted === previous) {
      throw new AmplifierError(
        'MOUNT_FAILED',
        `provider '${spec.module}' did not mount under its default name '${defaultName}', so it cannot be renamed to instance_id '${instanceId}'`,
      );
    }
    providers.set(instanceId, mounted);
    if (previous !== undefined) providers.set(defaultName, previous);
    else providers.delete(defaultName);
  }

  #extras(): Record<string, unknown> {
    const extras: Record<string, unknown> = {};
    const metadata = this.config.session.metadata;
    // Like the reference's truthiness test: an empty object is left out.
    if (metadata && Object.keys(metadata).length > 0) extras.metadata = metadata;
    if (this.config.session.raw) extras.raw = redactSecrets(this.config);
    return extras;
  }

  /**
   * Run one turn (and at most one repair turn) whose answer is a value of
   * `options.output`, typed from it; the model gives it through a
   * `final_answer` tool (validated like any typed tool) and may use every
   * other tool in the same turn. No valid answer: `StructuredOutputError`.
   */
  execute<const S extends StandardSchemaV1 | JSONSchema>(
    prompt: string,
    options: ExecuteOutputOptions<S>,
  ): Promise<ToolInputOf<S>>;
  /**
   * Run one turn. Initializes first if needed; emits `session:start` (or
   * `session:resume`) on the first call only. Aborting `signal` cancels
   * immediately. Never swallows the orchestrator's errors.
   */
  execute(prompt: string, options?: ExecuteOptions): Promise<string>;
  async execute(
    prompt: string,
    options: ExecuteOptions & { output?: StandardSchemaV1 | JSONSchema } = {},
  ): Promise<unknown> {
    this.#turns++;
    try {
      const { output, ...turn } = options;
      if (output === undefined) return await this.#execute(prompt, turn);
      await this.initialize();
      return await runForOutput(this.coordinator.get('tools'), prompt, output, (p) => this.#execute(p, turn));
    } finally {
      this.#turns--;
    }
  }

  async #execute(prompt: string, options: ExecuteOptions): Promise<string> {
    await this.initialize();
    const coordinator = this.coordinator;
    if (!this.#started) {
      this.#started = true;
      await coordinator.hooks.emit(this.#isResumed ? SESSION_RESUME : SESSION_START, {
        session_id: this.sessionId,
        parent_id: this.parentId,
        ...this.#extras(),
      });
    }
    const orchestrator = coordinator.get('orchestrator');
    const context = coordinator.get('context');
    const providers = coordinator.get('providers');
    if (orchestrator === undefined)
      throw new AmplifierError('SESSION_INVALID', 'No orchestrator module mounted');
    if (context === undefined) throw new AmplifierError('SESSION_INVALID', 'No context manager mounted');
    if (providers.size === 0) {
      throw new AmplifierError(
        'SESSION_INVALID',
        'No providers mounted: add one to the mount plan (providers: [{ module: provider-mock }] works offline) and check the warnings above for why a configured one did not load',
      );
    }

    coordinator.resetTurn();
    coordinator.cancellation.reset();
    const { signal } = options;
    const cancel = (): Promise<void> =>
      coordinator.requestCancel({ immediate: true }).then(
        () => {},
        (error: unknown) => this.#logger.warn(`cancellation failed: ${errorMessage(error)}`),
      );
    const onAbort = (): void => {
      void cancel();
    };
    // Already aborted: cancel (event and callbacks included) before the orchestrator starts.
    if (signal?.aborted) await cancel();
    else signal?.addEventListener('abort', onAbort, { once: true });

    this.status.status = 'running';
    const run: OrchestratorRun = {
      context,
      providers,
      tools: coordinator.get('tools'),
      hooks: coordinator.hooks,
      coordinator,
      signal: coordinator.cancellation.signal,
    };
    try {
      const result = await orchestrator.execute(prompt, run);
      if (coordinator.cancellation.isCancelled) {
        this.status.status = 'cancelled';
        await coordinator.hooks.emit(CANCEL_COMPLETED, {
          was_immediate: coordinator.cancellation.isImmediate,
        });
      } else {
        this.status.status = 'completed';
      }
      return result;
    } catch (error) {
      if (coordinator.cancellation.isCancelled) {
        this.status.status = 'cancelled';
        await coordinator.hooks.emit(CANCEL_COMPLETED, {
          was_immediate: coordinator.cancellation.isImmediate,
          error: errorMessage(error),
        });
      } else {
        this.status.status = 'failed';
        this.status.last_error = { message: errorMessage(error) };
      }
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Emit `session:end` (once, only if initialized), run every cleanup (LIFO),
   * then the loader's cleanup, even if a cleanup failed.
   */
  async cleanup(): Promise<void> {
    if (this.#initialized) {
      this.#initialized = false;
      this.status.ended_at = new Date().toISOString();
      try {
        await this.coordinator.hooks.emit(SESSION_END, {
          session_id: this.sessionId,
          status: this.status.status,
        });
      } catch (error) {
        this.#logger.warn(`session:end handlers failed: ${errorMessage(error)}`);
      }
    }
    try {
      await this.coordinator.cleanup();
    } finally {
      this.loader.cleanup?.();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.cleanup();
  }
}
