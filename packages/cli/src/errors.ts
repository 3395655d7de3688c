/**
 * Errors a user can act on, and the exit codes: 0 ok, 1 error, 2 usage,
 * 130 cancelled (Ctrl+C).
 */
import {
  AmplifierError,
  type CodesOf,
  defineErrors,
  type ErrorCode,
  type ErrorTable,
  errorMessage,
} from '@amplifier/core';

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_CANCELLED = 130;

const rows = {
  CLI_FAILED: { name: 'CliError', description: 'a command failed (exit code 1)' },
  CLI_USAGE: { name: 'CliError', description: 'a command was given wrong flags or arguments (exit code 2)' },
  CLI_CANCELLED: { name: 'CliError', description: 'the user stopped the command (exit code 130)' },
} as const;

/** The CLI's codes, one per exit code; the thrower writes the message, which says what to do. */
export const CLI_ERRORS: ErrorTable<typeof rows> = defineErrors(rows);

declare module '@amplifier/core' {
  interface DeclaredErrorCodes extends CodesOf<typeof CLI_ERRORS> {}
}

const CODE_OF_EXIT: Readonly<Record<number, keyof typeof rows>> = {
  [EXIT_USAGE]: 'CLI_USAGE',
  [EXIT_CANCELLED]: 'CLI_CANCELLED',
};

/** An error whose message is the whole story: printed without a stack trace. Its code follows the exit code. */
export class CliError extends AmplifierError {
  readonly exitCode: number;
  constructor(message: string, exitCode: number = EXIT_ERROR) {
    super(CODE_OF_EXIT[exitCode] ?? 'CLI_FAILED', message);
    this.exitCode = exitCode;
  }
}

/** The message for "no model provider could be mounted". */
export function noProviderMessage(detail?: string): string {
  return [
    `No model provider is configured${detail ? ` (${detail})` : ''}.`,
    'Set one of:',
    '  ANTHROPIC_API_KEY   Anthropic (Claude)',
    '  OPENAI_API_KEY      OpenAI',
    '  OPENAI_BASE_URL     an OpenAI-compatible local server (Ollama, vLLM, llama.cpp, LM Studio)',
    '  GEMINI_API_KEY      Google Gemini (or GOOGLE_API_KEY)',
    '  AZURE_OPENAI_ENDPOINT  Azure OpenAI, with AZURE_OPENAI_API_KEY or Microsoft Entra ID',
    '  AWS_BEARER_TOKEN_BEDROCK  Amazon Bedrock (or AWS credentials and AWS_REGION with --provider bedrock)',
    'or pick one with --provider anthropic|openai|gemini|azure|bedrock. Without any of them, `amplifier run` uses the',
    'offline demo provider (provider-mock), which needs no key: amplifier run --provider mock',
  ].join('\n');
}

/** Kernel error codes whose message already says what to do: shown as is, no stack. */
const PLAIN_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'MODULE_NOT_FOUND',
  'MODULE_LOAD_FAILED',
  'MODULE_INVALID_MANIFEST',
  'MODULE_INCOMPATIBLE',
  'MOUNT_PLAN_INVALID',
  'MOUNT_FAILED',
  'SESSION_INVALID',
  'LLM_ERROR',
]);

/** The text to print for an error, and the exit code it maps to. */
export function describeError(error: unknown, verbose: boolean): { message: string; exitCode: number } {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (AmplifierError.is(error) && PLAIN_CODES.has(error.code)) {
    const cause = (error as { cause?: unknown }).cause;
    // "Cannot initialize without orchestrator: Module 'x' not found ..." keeps the cause's advice.
    const message = error.message;
    const extra = verbose && error.stack ? `\n${error.stack}` : '';
    const causeText = verbose && cause instanceof Error && cause.stack ? `\ncaused by: ${cause.stack}` : '';
    return { message: message + extra + causeText, exitCode: EXIT_ERROR };
  }
  if (verbose && error instanceof Error && error.stack) return { message: error.stack, exitCode: EXIT_ERROR };
  return { message: errorMessage(error), exitCode: EXIT_ERROR };
}
