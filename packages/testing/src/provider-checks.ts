/**
 * Conformance checks for providers: identity, info, model listing, a minimal
 * completion that is a valid ChatResponse, and tool-call parsing. A provider
 * that talks to a service needs a config (and usually a local server started
 * in `setup`) that makes these calls work offline.
 */
import type { ChatRequest, ChatResponse, Provider, ToolCall } from '@amplifier/core';
import { checkData, formatDataErrors, toToolCallBlock } from '@amplifier/core';
import {
  type ConformanceCheck,
  cleanupCheck,
  describeValue,
  ensure,
  type ModuleUnderTest,
  type MountedModule,
  mustNotThrow,
  settle,
  withMounted,
} from './harness.js';

/** The smallest request every provider must answer. */
export const MINIMAL_REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Say hello.' }] };

function providers(mounted: MountedModule): Provider[] {
  const map = mounted.coordinator.get('providers');
  ensure(
    map.size > 0,
    'mount mounted no provider: call coordinator.mount("providers", provider) (a provider without credentials does not mount; pass them in config)',
  );
  return [...map.values()];
}

function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

async function complete(provider: Provider): Promise<ChatResponse> {
  const what = `${provider.name}.complete(minimal request)`;
  ensure(typeof provider.complete === 'function', `provider ${provider.name} has no complete function`);
  const response = await mustNotThrow(what, () => provider.complete(structuredClone(MINIMAL_REQUEST)));
  const errors = checkData('chat-response', response);
  ensure(errors.length === 0, `${what} returned an invalid ChatResponse:\n${formatDataErrors(errors)}`);
  return response;
}

/** Every check of the provider suite, in order. */
export const providerChecks: readonly ConformanceCheck<ModuleUnderTest>[] = [
  {
    name: 'mount mounts a provider with a non-empty name',
    run: (module) =>
      withMounted(module, async (mounted) => {
        for (const provider of providers(mounted)) {
          ensure(
            nonEmpty(provider.name),
            `provider name must be a non-empty string, found ${describeValue(provider.name)}`,
          );
        }
      }),
  },
  {
    name: 'getInfo returns an id and a display_name',
    run: (module) =>
      withMounted(module, async (mounted) => {
        for (const provider of providers(mounted)) {
          ensure(typeof provider.getInfo === 'function', `provider ${provider.name} has no getInfo function`);
          const info = await mustNotThrow(`${provider.name}.getInfo()`, () => provider.getInfo());
          ensure(
            nonEmpty(info?.id) && nonEmpty(info?.display_name),
            `${provider.name}.getInfo() must return { id, display_name } as non-empty strings, returned ${describeValue(info)}`,
          );
        }
      }),
  },
  {
    name: 'listModels returns an array of models with ids',
    run: (module) =>
      withMounted(module, async (mounted) => {
        for (const provider of providers(mounted)) {
          ensure(
            typeof provider.listModels === 'function',
            `provider ${provider.name} has no listModels function`,
          );
          const models = await mustNotThrow(`${provider.name}.listModels()`, () => provider.listModels());
          ensure(
            Array.isArray(models),
            `${provider.name}.listModels() must return an array, returned ${describeValue(models)}`,
          );
          for (const model of models) {
            ensure(
              nonEmpty(model?.id),
              `${provider.name}.listModels() returned a model without an id: ${describeValue(model)}`,
            );
          }
        }
      }),
  },
  {
    name: 'complete on a minimal request returns a valid ChatResponse',
    run: (module) =>
      withMounted(module, async (mounted) => {
        for (const provider of providers(mounted)) await complete(provider);
      }),
  },
  {
    name: 'parseToolCalls returns an array of { id, name, arguments }',
    run: (module) =>
      withMounted(module, async (mounted) => {
        for (const provider of providers(mounted)) {
          ensure(
            typeof provider.parseToolCalls === 'function',
            `provider ${provider.name} has no parseToolCalls function`,
          );
          const response = await complete(provider);
          const call: ToolCall = { id: 'call_1', name: 'read_file', arguments: { path: 'a.txt' } };
          const samples: [string, ChatResponse][] = [
            ['the response of complete', response],
            ['{ content: [] }', { content: [] }],
            ['a response with one tool call', { content: [toToolCallBlock(call)], tool_calls: [call] }],
          ];
          for (const [label, sample] of samples) {
            const what = `${provider.name}.parseToolCalls(${label})`;
            const calls = await mustNotThrow(what, () => provider.parseToolCalls(sample));
            ensure(Array.isArray(calls), `${what} must return an array, returned ${describeValue(calls)}`);
            for (const call of calls) {
              ensure(
                nonEmpty(call?.id) &&
                  nonEmpty(call?.name) &&
                  typeof call?.arguments === 'object' &&
                  call.arguments !== null,
                `${what} returned ${describeValue(call)}; each call must be { id, name, arguments: object }`,
              );
            }
            if (sample.tool_calls?.length) {
              ensure(
                calls.some((c) => c?.id === 'call_1' && c?.name === 'read_file'),
                `${what} returned ${describeValue(calls)}; the response's tool_calls must come back`,
              );
            }
          }
        }
      }),
  },
  {
    name: 'complete with an already-aborted signal settles',
    run: (module) =>
      withMounted(module, async (mounted) => {
        for (const provider of providers(mounted)) {
          const controller = new AbortController();
          controller.abort(new Error('aborted by the conformance suite'));
          // Rejecting (AbortError, LLMError) or answering are both fine; hanging is not.
          await settle(
            Promise.resolve()
              .then(() => provider.complete(structuredClone(MINIMAL_REQUEST), { signal: controller.signal }))
              .catch(() => undefined),
            `${provider.name}.complete with an aborted signal`,
          );
        }
      }),
  },
  cleanupCheck<ModuleUnderTest>(),
];
