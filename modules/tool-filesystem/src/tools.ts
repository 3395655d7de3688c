/**
 * The five tools of one mount: their definitions (tool-definitions.ts) and
 * resource keys (resource-keys.ts) now, their code on the first call of each
 * (a session that never edits never loads the edit code).
 */
import type { Tool, ToolCallOptions, ToolResult } from '@amplifier/core';
import type { ToolContext } from './config.js';
import type { GrepWorkers } from './grep-pool.js';
import { readKeys, searchKeys, writeKeys } from './resource-keys.js';
import { EDIT_FILE, GLOB, GREP, READ_FILE, type ToolDefinition, WRITE_FILE } from './tool-definitions.js';

type Run = (input: Record<string, unknown>, options: ToolCallOptions | undefined) => Promise<ToolResult>;

/** A tool whose `execute` imports its code once, on the first call. */
function lazyTool(
  definition: ToolDefinition,
  resourceKeys: NonNullable<Tool['executionProfile']>['resourceKeys'],
  load: () => Promise<Run>,
): Tool {
  let run: Promise<Run> | undefined;
  return {
    ...definition,
    executionProfile: { resourceKeys },
    async execute(input, options) {
      run ??= load();
      return (await run)(input, options);
    },
  };
}

/** Builders of the five tools by name, sharing `ctx` (and grep's worker pool). */
export function toolBuilders(
  ctx: ToolContext,
  workers: () => Promise<GrepWorkers>,
): Record<string, () => Tool> {
  return {
    read_file: () =>
      lazyTool(
        READ_FILE,
        (input) => readKeys(ctx, input.file_path),
        async () => {
          const { readFile } = await import('./read.js');
          return (input) => readFile(ctx, input);
        },
      ),
    write_file: () =>
      lazyTool(
        WRITE_FILE,
        (input) => writeKeys(ctx, input.file_path),
        async () => {
          const { writeFile } = await import('./write.js');
          return (input) => writeFile(ctx, input);
        },
      ),
    edit_file: () =>
      lazyTool(
        EDIT_FILE,
        (input) => writeKeys(ctx, input.file_path),
        async () => {
          const { editFile } = await import('./edit.js');
          return (input) => editFile(ctx, input);
        },
      ),
    glob: () =>
      lazyTool(
        GLOB,
        (input) => searchKeys(ctx, input.path),
        async () => {
          const { runGlob } = await import('./glob.js');
          return (input, options) => runGlob(ctx, input, options);
        },
      ),
    grep: () =>
      lazyTool(
        GREP,
        (input) => searchKeys(ctx, input.path),
        async () => {
          const { runGrep } = await import('./grep.js');
          return (input, options) => runGrep(ctx, workers, input, options);
        },
      ),
  };
}
