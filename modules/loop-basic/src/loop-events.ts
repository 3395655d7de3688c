/**
 * Events of the loop whose payloads take more than one line: content blocks,
 * provider errors. (Hook steps whose results the coordinator applies are one
 * call: `coordinator.emitAndProcess`.)
 */
import {
  type ChatResponse,
  type ContentBlock,
  type ContentBlockEndEvent,
  events as E,
  errorMessage,
  errorType,
  type HookRegistry,
  LLMError,
  type ProviderErrorEvent,
  type ToolCall,
  toToolCallBlock,
} from '@amplifier/core';

/**
 * `content_block:start`/`end` for each block of the response, for the events
 * someone listens to. The calls (stored once, in `toolCalls`) are written here
 * as the `tool_call` blocks Amplifier's payloads carry, after the content.
 */
export async function emitBlocks(
  hooks: HookRegistry,
  response: ChatResponse,
  toolCalls: readonly ToolCall[],
): Promise<void> {
  const start = hooks.has(E.CONTENT_BLOCK_START);
  const end = hooks.has(E.CONTENT_BLOCK_END);
  if (!start && !end) return;
  const content = Array.isArray(response.content) ? response.content : [];
  const blocks: readonly ContentBlock[] =
    toolCalls.length === 0
      ? content
      : [...content.filter((block) => block?.type !== 'tool_call'), ...toolCalls.map(toToolCallBlock)];
  if (blocks.length === 0) return;
  const total = blocks.length;
  for (let i = 0; i < total; i++) {
    const block = blocks[i]!;
    if (start) {
      await hooks.emit(E.CONTENT_BLOCK_START, {
        block_type: block.type,
        block_index: i,
        total_blocks: total,
      });
    }
    if (end) {
      const data: ContentBlockEndEvent = { block_index: i, total_blocks: total, block };
      if (response.usage) data.usage = response.usage;
      await hooks.emit(E.CONTENT_BLOCK_END, data);
    }
  }
}

/** `provider:error`, with `retryable` and `status_code` for LLMErrors (the reference's payload). */
export async function emitProviderError(
  hooks: HookRegistry,
  provider: string,
  error: unknown,
): Promise<void> {
  const data: ProviderErrorEvent = {
    provider,
    error: { type: errorType(error), msg: errorMessage(error) },
  };
  if (LLMError.is(error)) {
    data.retryable = error.retryable;
    data.status_code = error.status_code ?? null;
  }
  try {
    await hooks.emit(E.PROVIDER_ERROR, data);
  } catch {
    // emit never throws; a broken registry must not hide the provider's error
  }
}
