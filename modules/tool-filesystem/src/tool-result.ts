/**
 * ToolResult builders. A failure always carries `output` equal to the message
 * (the model reads `output`), and extra fields on `error` for programs.
 */
import type { ToolResult } from '@amplifier/core';
import { SandboxError } from './sandbox.js';

/** A successful result. */
export function ok(output: unknown): ToolResult {
  return { success: true, output };
}

/** A failed result: `output` and `error.message` are the same text. */
export function fail(message: string, extra: Record<string, unknown> = {}): ToolResult {
  return { success: false, output: message, error: { ...extra, message } };
}

/** A failed result from a thrown SandboxError, else `undefined` (the caller words other errors). */
export function sandboxFailure(error: unknown): ToolResult | undefined {
  if (error instanceof SandboxError) return fail(error.message, { type: error.type });
  return undefined;
}

/** Node's error code of an OS error, if any. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
