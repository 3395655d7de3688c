/**
 * `amplifier tool list` and `amplifier tool invoke <name> key=value ...`: the
 * tools of the plan (default or --plan), mounted in a session of their own and
 * called directly through its coordinator. Providers and hooks are left out:
 * no model is involved and nothing is logged.
 */

import path from 'node:path';
import {
  AmplifierSession,
  errorMessage,
  formatDataErrors,
  type Logger,
  type Tool,
  type ToolResult,
} from '@amplifier/core';
import { terminalSafeJson } from '@amplifier/process/terminal';
import { compileSchema } from '@amplifier/schema';
import {
  describeProblem,
  formatManifestProblems,
  type LoadProblem,
  lintManifest,
  PROBLEMS_CAPABILITY,
} from '@amplifier/tool-agentpm';
import { CliApproval, terminalCanAsk } from './approval.js';
import type { Display } from './display.js';
import { CliError, EXIT_CANCELLED, EXIT_ERROR, EXIT_OK, EXIT_USAGE } from './errors.js';
import { createLoader, table } from './modules.js';
import { type PlanOptions, resolvePlan } from './plan.js';
import { resolveCwd } from './run.js';

export interface ToolCommandOptions {
  plan?: string | undefined;
  /** A bundle instead of a plan (`--bundle`), with its `--source` mappings. */
  bundle?: string | undefined;
  sources?: string[] | undefined;
  cwd?: string | undefined;
  json: boolean;
  verbose: boolean;
}

/** `key=value` pairs to an input object; a value that parses as JSON is that JSON, otherwise a string. */
export function parseToolArgs(pairs: readonly string[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliError(`Tool arguments are key=value pairs; got '${pair}'`, EXIT_USAGE);
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // Not JSON: keep the string.
    }
    input[pair.slice(0, at)] = value;
  }
  return input;
}

/** The AgentPM tools that failed to load: each source with its error problems (the module's load report). */
function agentPmFailures(session: AmplifierSession): Map<string, LoadProblem[]> {
  const problems = session.coordinator.getCapability<LoadProblem[]>(PROBLEMS_CAPABILITY) ?? [];
  const failed = new Map<string, LoadProblem[]>();
  for (const problem of problems) {
    if (problem.severity !== 'error') continue;
    failed.set(problem.source, [...(failed.get(problem.source) ?? []), problem]);
  }
  return failed;
}

/** The warnings tool-agentpm logs for the failures it reports (printed once, by the command, instead). */
function failureLogLines(failed: Map<string, LoadProblem[]>): Set<string> {
  const lines = new Set<string>();
  for (const [source, problems] of failed) {
    lines.add(`tool-agentpm: tool '${source}' was not loaded`);
    for (const problem of problems) lines.add(`tool-agentpm: ${describeProblem(problem)}`);
  }
  return lines;
}

/** A `--bundle` ready for resolvePlan, and the system prompt it gives a session that runs a model. */
export interface BundleChoice {
  bundle: PlanOptions['bundle'];
  systemPrompt: (() => Promise<string | undefined>) | undefined;
}

/**
 * `--bundle` (with its `--source` mappings) as resolvePlan's bundle option and
 * the bundle's system prompt, its warnings on the display; both undefined
 * without one. `--plan` and `--bundle` together are a usage error.
 */
export async function bundleOption(
  options: { plan?: string | undefined; bundle?: string | undefined; sources?: string[] | undefined },
  cwd: string,
  display: Display,
): Promise<BundleChoice> {
  if (options.plan !== undefined && options.bundle !== undefined) {
    throw new CliError('Give --plan or --bundle, not both.', EXIT_USAGE);
  }
  if (options.bundle === undefined) return { bundle: undefined, systemPrompt: undefined };
  const { bundlePlan, loadCliBundle, promptOptions } = await import('./bundles.js');
  const { buildSystemPrompt, notRunnableReason } = await import('@amplifier/bundles');
  const { readOnlyTrust } = await import('./workspace-trust.js');
  const trust = readOnlyTrust(cwd, display);
  const loaded = await loadCliBundle(options.bundle, {
    cwd,
    sources: options.sources,
    ...trust,
    notice: (m) => display.warn(m),
  });
  const reason = notRunnableReason(loaded);
  if (reason !== undefined) throw new CliError(`Cannot mount ${loaded.source}: ${reason}.`);
  const { data, warnings, ignored } = bundlePlan(loaded, process.env, cwd);
  for (const warning of warnings) display.warn(warning);
  for (const item of ignored) display.warn(`${item.file}: ${item.key} ignored: ${item.why}`);
  const prompt = promptOptions(cwd, (m) => display.warn(m), process.env, trust.projectTrusted);
  return {
    bundle: { data, ref: options.bundle, origin: loaded.source },
    systemPrompt: () => buildSystemPrompt(loaded, prompt),
  };
}

async function withTools<T>(
  options: ToolCommandOptions,
  display: Display,
  use: (session: AmplifierSession, failed: Map<string, LoadProblem[]>) => Promise<T>,
): Promise<T> {
  const cwd = resolveCwd(options.cwd);
  const { bundle } = await bundleOption(options, cwd, display);
  const { plan } = resolvePlan({
    planFile: options.plan,
    bundle,
    cwd,
    provider: 'mock',
    emptySections: ['providers', 'hooks'],
  });
  // Warnings wait until the session is built: the failures reported below are not printed twice.
  let pending: string[] | undefined = [];
  const logger: Logger = {
    debug: (m) => display.debug(m),
    info: (m) => display.debug(m),
    // Modules that fail to load are reported below, with the advice from their error.
    warn: (m) => {
      if (/^(provider|tool|hook) '[^']*' was not loaded: /.test(m)) return;
      if (pending) pending.push(m);
      else display.warn(m);
    },
    error: (m) => display.error(m),
  };
  const flush = (skip: Set<string> = new Set()): void => {
    for (const m of pending ?? []) if (!skip.has(m)) display.warn(m);
    pending = undefined;
  };
  const session = await AmplifierSession.create(plan, {
    loader: createLoader(cwd, { logger }),
    logger,
    display,
    approval: new CliApproval({
      display,
      interactive: terminalCanAsk(),
    }),
    baseDir: cwd,
    workingDir: cwd,
  }).catch((error: unknown) => {
    flush();
    throw error;
  });
  try {
    const agentPm = agentPmFailures(session);
    flush(failureLogLines(agentPm));
    const failed = session.failures.map(
      (f) => `Could not load ${f.section.replace(/s$/, '')} '${f.module}': ${errorMessage(f.error)}`,
    );
    if (failed.length > 0) throw new CliError(failed.join('\n\n'));
    return await use(session, agentPm);
  } finally {
    flush();
    await session.cleanup();
  }
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}

/**
 * `amplifier tool list`: name and description of every mounted tool. AgentPM
 * tools that failed to load are reported on stderr, each with its reasons,
 * and make the command exit 1 (the list of the others is still printed).
 */
export async function listTools(
  options: ToolCommandOptions,
  display: Display,
  out: NodeJS.WritableStream,
): Promise<number> {
  return withTools(options, display, async (session, failed) => {
    const tools = [...session.coordinator.get('tools').values()];
    if (options.json) {
      const list = tools.map((t) => ({
        name: t.name,
        description: t.description,
        input_schema: t.inputSchema ?? {},
      }));
      out.write(`${terminalSafeJson(JSON.stringify(list, null, 2))}\n`);
    } else {
      out.write(
        table(
          ['TOOL', 'DESCRIPTION'],
          tools.map((t) => [t.name, firstLine(t.description).slice(0, 100)]),
        ),
      );
    }
    if (failed.size === 0) return EXIT_OK;
    const reports = [...failed].map(
      ([source, problems]) =>
        `AgentPM tool '${source}' was not loaded:\n${problems.map((p) => `  - ${p.path ? `${p.path}: ` : ''}${p.message}`).join('\n')}`,
    );
    display.error(
      `${reports.join('\n')}\nFix the manifest or the config (amplifier tool lint <folder> checks a tool folder).`,
    );
    return EXIT_ERROR;
  });
}

function checkInput(tool: Tool, input: Record<string, unknown>): void {
  if (tool.inputSchema === undefined) return;
  const errors = compileSchema(tool.inputSchema)(input);
  if (errors.length > 0) {
    throw new CliError(`Invalid input for ${tool.name}:\n${formatDataErrors(errors)}`, EXIT_USAGE);
  }
}

/** `amplifier tool invoke`: run one tool, print its result; exit 1 when it reports `success: false`. */
export async function invokeTool(
  name: string,
  pairs: readonly string[],
  options: ToolCommandOptions,
  display: Display,
  out: NodeJS.WritableStream,
): Promise<number> {
  const input = parseToolArgs(pairs);
  return withTools(options, display, async (session) => {
    const tools = session.coordinator.get('tools');
    const tool = tools.get(name);
    if (tool === undefined) {
      throw new CliError(
        `No tool '${name}' in the plan. Available: ${[...tools.keys()].join(', ') || '(none)'}`,
      );
    }
    checkInput(tool, input);
    const coordinator = session.coordinator;
    // Ctrl+C stops the call at once: there is no next step to wait for.
    const onSigint = (): void => void coordinator.requestCancel({ immediate: true }).catch(() => {});
    process.on('SIGINT', onSigint);
    let result: ToolResult;
    try {
      result = await tool.execute(input, {
        signal: coordinator.cancellation.signal,
        toolCallId: 'cli_invoke',
      });
    } catch (error) {
      result = { success: false, error: { message: errorMessage(error) } };
    } finally {
      process.off('SIGINT', onSigint);
    }
    if (coordinator.cancellation.isCancelled) {
      display.warn('Cancelled.');
      return EXIT_CANCELLED;
    }
    // A failure whose output is its message is said once on a terminal (by the error line on stderr).
    const repeatsError =
      result.success === false &&
      (out as { isTTY?: boolean }).isTTY === true &&
      typeof result.output === 'string' &&
      result.output.trim() === (result.error?.message ?? '').trim();
    if (options.json) {
      out.write(`${JSON.stringify(result, null, 2)}\n`);
    } else if (result.output !== undefined && result.output !== null && !repeatsError) {
      const output = result.output;
      out.write(
        typeof output === 'string'
          ? output.endsWith('\n')
            ? output
            : `${output}\n`
          : `${JSON.stringify(output, null, 2)}\n`,
      );
    }
    if (result.success === false) {
      if (!options.json) display.error(result.error?.message ?? 'the tool reported a failure');
      return EXIT_ERROR;
    }
    return EXIT_OK;
  });
}

/**
 * `amplifier tool lint <folder>`: the problems of an AgentPM tool folder's
 * `agent.json`, one per line like a linter (`<file>: <severity> <json path>: <message>`);
 * exit 1 when one is an error.
 */
export function lintTool(
  folder: string,
  options: { cwd: string; json: boolean },
  out: NodeJS.WritableStream,
): number {
  const dir = path.resolve(options.cwd, folder);
  const problems = lintManifest(dir);
  const failed = problems.some((p) => p.severity === 'error');
  if (options.json) {
    out.write(`${JSON.stringify({ folder: dir, passed: !failed, problems }, null, 2)}\n`);
  } else if (problems.length === 0) {
    out.write(`${path.join(dir, 'agent.json')}: no problems\n`);
  } else {
    out.write(`${formatManifestProblems(problems, path.join(dir, 'agent.json'))}\n`);
  }
  return failed ? EXIT_ERROR : EXIT_OK;
}
