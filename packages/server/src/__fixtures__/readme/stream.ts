import type { AmplifierSession } from '@amplifier/core';
import { streamTurn } from '../../index.js';

/** Show a turn as it happens (text as it streams, a line per tool call); returns the answer. */
export async function showTurn(
  session: AmplifierSession,
  prompt: string,
  write: (text: string) => void,
): Promise<string> {
  let answer = '';
  for await (const event of streamTurn(session, prompt, { signal: AbortSignal.timeout(60_000) })) {
    if (event.type === 'text_delta') write(event.text);
    else if (event.type === 'tool_call') write(`\n[${event.tool_name}]\n`);
    else if (event.type === 'finish') answer = event.text; // what execute() would have returned
  }
  return answer;
}
