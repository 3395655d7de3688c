/**
 * `amplifier run`, `--resume` and `continue`: the prompt (argument, stdin or
 * the REPL), the plan, process-level Ctrl+C / SIGTERM handling, and what a
 * one-shot turn prints.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Bundle } from '@amplifier/bundles';
import { errorMessage } from '@amplifier/core';
import { agentDirs } from './agent-dirs.js';
import { commandName } from './command-name.js';
import { DEMO_PROMPT } from './demo.js';
import { Display } from './display.js';
import { CliError, describeError, EXIT_CANCELLED, EXIT_ERROR, EXIT_OK, EXIT_USAGE } from './errors.js';
import { parsePlan, resolvePlan } from './plan.js';
import type { IgnoredKey } from './project-config.js';
import { type OpenOptions, SessionRunner, type TurnOutcome } from './runner.js';
import { type SessionRecord, SessionStore } from './sessions.js';
import { startTelemetry, type Telemetry } from './telemetry.js';
import type { WorkspaceTrust } from './workspace-trust.js';

/** Flags of `run` and `continue`. */
export interface RunOptions {
  prompt?: string | undefined;
  plan?: string | undefined;
  /** A bundle: a file, a folder, a name or a URI (`--bundle`). */
  bundle?: string | undefined;
  /** `--source <url>=<folder>` mappings for the bundle's includes. */
  sources?: string[] | undefined;
  provider?: string | undefined;
  model?: string | undefined;
  maxIterations?: number | undefined;
  cwd?: string | undefined;
  verbose?: boolean;
  json?: boolean;
  /** Apply the event log's redaction rules to everything printed (`--redact`). */
  redact?: boolean;
  /** Show the model's streamed thinking (dimmed, stderr); `--no-thinking` hides it. */
  thinking?: boolean;
  /** A session id (or unique prefix) to resume. */
  resume?: string | undefined;
  /** Resume the most recent session of the project (`amplifier continue`). */
  continueLatest?: boolean;
  /** Trust the folder's `.amplifier/` for this run (`--trust-project`). */
  trustProject?: boolean;
}

/** The directory a run works in: --cwd (must be a directory) or the current one. */
export function resolveCwd(cwd: string | undefined): string {
  const dir = path.resolve(cwd ?? process.cwd());
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CliError(`--cwd ${dir} is not a directory`, EXIT_USAGE);
  }
  return dir;
}

/** Read all of stdin (used when it is not a terminal). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Process-level Ctrl+C / SIGTERM handling for a run. */
export interface SignalHandling {
  /** Ctrl+C came outside a turn (while loading modules): stop at the next step. */
  readonly interrupted: boolean;
  dispose(): void;
}

/** Route Ctrl+C to the runner's turn (graceful, then immediate); SIGTERM cancels immediately. */
export function handleSignals(getRunner: () => SessionRunner | undefined, display: Display): SignalHandling {
  let interrupted = false;
  let early = 0;
  const onSigint = (): void => {
    const runner = getRunner();
    if (runner?.inTurn) {
      runner.interrupt();
      return;
    }
    // Not in a turn (loading modules, between turns): a second press leaves at once.
    interrupted = true;
    if (++early >= 2) process.exit(EXIT_CANCELLED);
    display.warn('Interrupted: finishing up. Press Ctrl+C again to quit now.');
  };
  const onSigterm = (): void => {
    interrupted = true;
    const runner = getRunner();
    if (runner?.inTurn) void runner.session.coordinator.requestCancel({ immediate: true }).catch(() => {});
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  return {
    get interrupted() {
      return interrupted;
    },
    dispose() {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
    },
  };
}

/** `amplifier run` / `amplifier continue`: one shot, or the REPL when there is no prompt on a terminal. */
export async function runCommand(options: RunOptions): Promise<number> {
  const display = new Display({
    json: options.json ?? false,
    verbose: options.verbose ?? false,
    redact: options.redact ?? false,
    thinking: options.thinking ?? true,
  });
  const store = new SessionStore();
  let runner: SessionRunner | undefined;
  let telemetry: Telemetry | undefined;
  const signals = handleSignals(() => runner, display);
  try {
    let record: SessionRecord | undefined;
    const startDir = path.resolve(options.cwd ?? process.cwd());
    if (options.resume !== undefined) record = store.find(options.resume, startDir);
    else if (options.continueLatest) {
      record = store.latest(startDir);
      if (record === undefined) {
        throw new CliError(
          `No session to continue in ${startDir}. Start one with: ${commandName()} run "<prompt>"`,
        );
      }
    }
    const remembered = record?.metadata.options;
    if (options.cwd === undefined && record !== undefined && record.metadata.cwd === '') {
      throw new CliError(
        `Session ${record.id} does not record its working directory (no cwd or working_dir in ${path.join(record.dir, 'metadata.json')}); pass --cwd <dir> to resume it.`,
      );
    }
    if (options.cwd === undefined && record !== undefined && !fs.existsSync(record.metadata.cwd)) {
      throw new CliError(
        `The session's working directory ${record.metadata.cwd} no longer exists; pass --cwd <dir> to resume it elsewhere.`,
      );
    }
    const cwd = resolveCwd(options.cwd ?? record?.metadata.cwd);
    // The folder's trust (docs/trust.md): decided before anything of its .amplifier/ is read.
    let trust: WorkspaceTrust | undefined;
    const ignored: IgnoredKey[] = [];
    if (options.trustProject === true || fs.existsSync(path.join(cwd, '.amplifier'))) {
      const { decideWorkspaceTrust } = await import('./workspace-trust.js');
      trust = await decideWorkspaceTrust(cwd, { flag: options.trustProject, display });
    }
    const projectTrusted = trust?.trusted === true;
    const provider = options.provider ?? remembered?.provider ?? undefined;
    const model = options.model ?? remembered?.model ?? undefined;
    const maxIterations = options.maxIterations ?? remembered?.max_iterations ?? undefined;
    if (options.plan !== undefined && options.bundle !== undefined) {
      throw new CliError('Give --plan or --bundle, not both.', EXIT_USAGE);
    }
    const planFile =
      options.plan ?? (options.bundle === undefined ? remembered?.plan_file : undefined) ?? undefined;
    const bundleRef =
      planFile === undefined ? (options.bundle ?? remembered?.bundle ?? undefined) : undefined;
    const sources = options.sources ?? remembered?.sources ?? undefined;
    let bundle: Bundle | undefined;
    let bundleData: { data: Record<string, unknown>; warnings: string[]; ignored: IgnoredKey[] } | undefined;
    let systemPrompt: (() => Promise<string | undefined>) | undefined;
    if (bundleRef !== undefined) {
      // Loaded on use: a run without a bundle never loads the bundle kit.
      const { bundlePlan, loadCliBundle, promptOptions } = await import('./bundles.js');
      const { buildSystemPrompt, notRunnableReason } = await import('@amplifier/bundles');
      const loaded = await loadCliBundle(bundleRef, {
        cwd,
        sources,
        projectTrusted,
        trustReason: trust?.reason,
        notice: (m) => display.warn(m),
      });
      const reason = notRunnableReason(loaded);
      if (reason !== undefined) throw new CliError(`Cannot run ${loaded.source}: ${reason}.`);
      bundle = loaded;
      bundleData = bundlePlan(loaded, process.env, cwd);
      ignored.push(...bundleData.ignored);
      const prompt = promptOptions(cwd, (m) => display.warn(m), process.env, projectTrusted);
      systemPrompt = () => buildSystemPrompt(loaded, prompt);
    }
    const planned = resolvePlan({
      planFile,
      provider,
      model,
      maxIterations,
      cwd,
      ...(bundle !== undefined &&
        bundleData !== undefined && {
          bundle: { data: bundleData.data, ref: rememberedBundle(bundleRef!, cwd), origin: bundle.source },
        }),
    });
    for (const warning of [...(bundleData?.warnings ?? []), ...planned.warnings]) display.warn(warning);
    // OTEL_EXPORTER_OTLP_ENDPOINT (or AMPLIFIER_OTEL=1): the SDK, the OTLP exporters and hooks-otel.
    telemetry = await startTelemetry(planned, process.env, (message) => display.warn(message));
    const resolved = telemetry?.resolved ?? planned;
    let agents: OpenOptions['agents'];
    if (bundle !== undefined || agentDirs(cwd).some((dir) => fs.existsSync(dir))) {
      // Loaded on use, like the bundle kit: a run with no agents anywhere reads none.
      const setup = (await import('./agents.js')).runAgents(resolved.plan, cwd, bundle, projectTrusted, (m) =>
        display.warn(m),
      );
      resolved.plan = setup.plan;
      agents = { spawn: setup.spawn, systemPrompt: setup.systemPrompt };
      for (const warning of setup.warnings) display.warn(warning);
      ignored.push(...setup.ignored);
    }
    if (projectTrusted) {
      // tool-mcp starts the folder's .amplifier/mcp.json servers once the folder is trusted.
      const { withProjectMcpTrust } = await import('./project-config.js');
      const changed = withProjectMcpTrust(resolved.plan);
      if (changed !== undefined) resolved.plan = parsePlan(changed, '(with the project trusted)');
    }
    if (trust !== undefined) {
      const { reportIgnored } = await import('./workspace-trust.js');
      reportIgnored(ignored, trust, display);
    }

    let prompt = options.prompt;
    if (prompt === undefined && process.stdin.isTTY !== true) {
      prompt = (await readStdin()).trim();
      if (prompt === '') prompt = undefined;
    }
    const demo = resolved.provider.demo;
    // Without a terminal the demo runs once; on a terminal without a prompt it is a REPL like any other.
    if (prompt === undefined && demo && record === undefined && process.stdin.isTTY !== true) {
      prompt = DEMO_PROMPT;
    }
    if (prompt === undefined && process.stdin.isTTY !== true) {
      throw new CliError(
        'No prompt: pass one as an argument (amplifier run "<prompt>") or on stdin.',
        EXIT_USAGE,
      );
    }

    if (demo) {
      const c = display.colors;
      display.line(
        `${c.bold('amplifier')} ${c.dim('·')} offline demo: a scripted model (provider-mock) drives the real tools on ${cwd}${prompt === undefined ? ' (each message you send runs its tour)' : ''}`,
      );
      display.line(
        c.dim(
          'For a real model set ANTHROPIC_API_KEY or OPENAI_API_KEY (OPENAI_BASE_URL for a local server).',
        ),
      );
      display.line('');
    }
    display.debug(`provider: ${resolved.provider.name} (${resolved.provider.reason})`);

    runner = await SessionRunner.open({
      resolved,
      cwd,
      display,
      store,
      record,
      systemPrompt,
      agents,
      remember: {
        bundle: resolved.bundle ?? null,
        sources: resolved.bundle !== undefined && sources !== undefined ? sources : null,
        // With a plan file or a bundle and no --provider, the plan decides again next time.
        provider:
          (resolved.planFile !== undefined || resolved.bundle !== undefined) && provider === undefined
            ? null
            : resolved.provider.name,
        model: model ?? null,
        max_iterations: maxIterations ?? null,
      },
    });
    if (display.verbose) {
      // Imported here: it loads the process kit, which a plan without subprocess tools never needs.
      const { sandboxLines } = await import('./sandbox-status.js');
      for (const line of await sandboxLines(runner.session.coordinator)) display.debug(`sandbox: ${line}`);
    }
    display.emitJson({
      type: 'session',
      session_id: runner.sessionId,
      resumed: record !== undefined,
      cwd,
      provider: resolved.provider.name,
      model: resolved.model ?? null,
    });
    if (signals.interrupted) return EXIT_CANCELLED;

    if (prompt === undefined) {
      const { repl } = await import('./repl.js');
      return await repl(runner);
    }
    const outcome = await runner.turn(prompt);
    return reportOutcome(outcome, runner);
  } catch (error) {
    const { message, exitCode } = describeError(error, options.verbose ?? false);
    display.error(message);
    display.emitJson({ type: 'error', message, exit_code: exitCode });
    return exitCode;
  } finally {
    await runner?.close().catch((error: unknown) => display.error(`cleanup failed: ${errorMessage(error)}`));
    await telemetry?.shutdown();
    signals.dispose();
  }
}

/** The bundle reference to store for a resume: an existing relative path made absolute, else as given. */
function rememberedBundle(ref: string, cwd: string): string {
  const file = path.resolve(cwd, ref);
  return ref.includes('://') || ref.startsWith('git+') || !fs.existsSync(file) ? ref : file;
}

/** Print a one-shot turn's answer (stdout) or what went wrong (stderr); returns the exit code. */
export function reportOutcome(outcome: TurnOutcome, runner: SessionRunner): number {
  const { display } = runner;
  const c = display.colors;
  if (outcome.status === 'completed') {
    display.answer(outcome.answer);
    display.line(
      c.dim(`\nsession ${runner.sessionId.slice(0, 8)} saved · continue it with: ${commandName()} continue`),
    );
    return EXIT_OK;
  }
  if (outcome.status === 'cancelled') {
    display.warn('Cancelled.');
    return EXIT_CANCELLED;
  }
  display.error(describeError(outcome.error, display.verbose).message);
  return EXIT_ERROR;
}
