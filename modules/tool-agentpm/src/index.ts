/**
 * @amplifier/tool-agentpm (module id `tool-agentpm`): tools packaged as
 * AgentPM `agent.json` manifests, each call run in its own subprocess with
 * only the declared environment, validated input and output, bounded output
 * and process-group kills. `lintManifest(folder)` checks a tool folder the
 * way a linter would.
 */
import path from 'node:path';
import { AmplifierError, type Cleanup, type Coordinator } from '@amplifier/core';
import {
  requireProcessGroups,
  SANDBOX_STATUS_CHANNEL,
  Sandbox,
  SandboxUnavailableError,
} from '@amplifier/process';
import { parseConfig } from './config.js';
import { describeProblem, type LoadProblem, prepareTools } from './loader.js';
import { AgentPmTool, ToolRuntime } from './tool.js';

export type { AgentPmConfig, ToolEntry, ToolEnv } from './config.js';
export { DEFAULT_PASS_ENV, DEFAULTS, parseConfig, toolEnvironment } from './config.js';
export type { FilesEntryKind } from './files.js';
export { filesEntryKind, filesMatcher } from './files.js';
export type { CheckOptions, ManifestCheck } from './lint.js';
export { checkManifest, formatManifestProblems, lintManifest } from './lint.js';
export type { LoadProblem, PreparedTool, PrepareOptions } from './loader.js';
export {
  describeProblem,
  findExecutable,
  findInterpreter,
  locateToolFolder,
  prepareTools,
} from './loader.js';
export type { AgentManifest, EnvVarSpec, ManifestProblem, Severity } from './manifest.js';
export {
  AGENT_MANIFEST_SCHEMA,
  BARE_COMMANDS,
  interpreterFamily,
  MANIFEST_FILE,
  modelToolName,
  scriptIndex,
} from './manifest.js';
export { AgentPmTool, STDERR_TAIL_BYTES, ToolRuntime } from './tool.js';

/** Capability holding the load report (`LoadProblem[]`) of the last mount. */
export const PROBLEMS_CAPABILITY = 'tool-agentpm.problems';
/** Capability holding what was mounted: `{ name, manifest_name, version, folder, source }[]`. */
export const TOOLS_CAPABILITY = 'tool-agentpm.tools';

/** One mounted manifest tool, as listed in the `tool-agentpm.tools` capability. */
export interface MountedToolInfo {
  name: string;
  manifest_name: string;
  version: string;
  folder: string;
  source: string;
}

/**
 * Load every configured manifest and mount each valid one as a tool. Bad
 * config fails with a message naming the key; a tool that fails to load is
 * logged (one warning per problem) and listed in the `tool-agentpm.problems`
 * capability, and the others still mount. The cleanup stops every running
 * call (their process groups) and unmounts the tools.
 */
export async function mount(
  coordinator: Coordinator,
  config: Record<string, unknown> = {},
): Promise<Cleanup> {
  requireProcessGroups('tool-agentpm');
  const settings = parseConfig(config, coordinator.logger);
  const fromCapability = coordinator.getCapability<unknown>('session.working_dir');
  const baseDir =
    settings.working_dir ??
    (typeof fromCapability === 'string' && fromCapability !== '' ? fromCapability : process.cwd());
  const tools = coordinator.get('tools');
  const { tools: prepared, problems } = prepareTools(settings, {
    baseDir,
    hostEnv: process.env,
    taken: (name) => tools.has(name),
  });
  report(coordinator, problems);

  let sandbox: Sandbox;
  try {
    sandbox = new Sandbox(settings.sandbox, {
      module: 'tool-agentpm',
      notice: (message) => coordinator.logger.warn(message),
    });
  } catch (error) {
    if (error instanceof SandboxUnavailableError) throw new AmplifierError('MOUNT_FAILED', error.message);
    throw error;
  }
  coordinator.registerContributor(SANDBOX_STATUS_CHANNEL, 'tool-agentpm', () => sandbox.status());
  const runtime = new ToolRuntime({
    maxOutputBytes: settings.max_output_bytes,
    graceMs: settings.kill_grace_ms,
    sandbox: { sandbox, workspace: path.resolve(baseDir) },
  });
  const mounted: AgentPmTool[] = [];
  for (const spec of prepared) {
    const tool = new AgentPmTool(spec, runtime);
    coordinator.mount('tools', tool, { name: tool.name });
    mounted.push(tool);
  }
  coordinator.registerCapability(TOOLS_CAPABILITY, mounted.map(info));
  return async () => {
    await runtime.close();
    for (const tool of mounted) {
      if (coordinator.get('tools', tool.name) === tool) coordinator.unmount('tools', { name: tool.name });
    }
  };
}

function report(coordinator: Coordinator, problems: LoadProblem[]): void {
  coordinator.registerCapability(PROBLEMS_CAPABILITY, problems);
  const failed = new Set(problems.filter((p) => p.severity === 'error').map((p) => p.source));
  for (const problem of problems) {
    const line = `tool-agentpm: ${describeProblem(problem)}`;
    if (problem.severity === 'error') coordinator.logger.warn(line);
    else coordinator.logger.info(line);
  }
  for (const source of failed) coordinator.logger.warn(`tool-agentpm: tool '${source}' was not loaded`);
}

function info(tool: AgentPmTool): MountedToolInfo {
  return {
    name: tool.name,
    manifest_name: tool.manifest.name,
    version: tool.manifest.version,
    folder: tool.folder,
    source: tool.source,
  };
}
