import { AmplifierError, type Logger } from '@amplifier/core';
import { SANDBOX_CONFIG_PROPERTIES, type SandboxPolicy } from '@amplifier/process';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type AgentPmConfig,
  type AgentPmConfigInput,
  CONFIG_SCHEMA,
  parseConfig,
  type ToolEntry,
} from './config.js';

describe('the config type is derived from CONFIG_SCHEMA (issue 38, point 5)', () => {
  it('types each key as the schema says; a wrong-typed key does not compile and is refused at mount', () => {
    expectTypeOf<AgentPmConfigInput['tools']>().toEqualTypeOf<
      (string | { source: string; pass_env?: string[] })[] | undefined
    >();
    expectTypeOf<AgentPmConfigInput['env']>().toEqualTypeOf<Record<string, string> | undefined>();
    expectTypeOf<ToolEntry>().toEqualTypeOf<{ source: string; pass_env: string[] }>();
    expectTypeOf<AgentPmConfig['working_dir']>().toEqualTypeOf<string | null>();
    expectTypeOf<AgentPmConfig['timeout_ms']>().toEqualTypeOf<number>();
    expectTypeOf<AgentPmConfig['sandbox']>().toEqualTypeOf<SandboxPolicy>();
    // @ts-expect-error a tools entry needs its source
    const bad: AgentPmConfigInput = { tools: [{ pass_env: ['TOKEN'] }] };
    expect(() => parseConfig(bad)).toThrow(AmplifierError);
    expect(() => parseConfig(bad)).toThrow('tools[0].source is required');
  });

  it('an unknown key inside a tools entry is warned about once and left out', () => {
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (m: string) => warnings.push(m) };
    const config = parseConfig({ tools: ['a', { source: './b', pass_env: ['X'], cwd: '/' }] }, logger);
    expect(config.tools).toEqual([
      { source: 'a', pass_env: [] },
      { source: './b', pass_env: ['X'] },
    ]);
    expect(warnings).toEqual(["tool-agentpm: unknown config key 'tools[1].cwd' is ignored"]);
  });

  it('two duration keys that disagree fail the mount through the one config wrapper', () => {
    let error: unknown;
    try {
      parseConfig({ kill_grace: 1, kill_grace_ms: 5 });
    } catch (caught) {
      error = caught;
    }
    expect(AmplifierError.is(error, 'MOUNT_FAILED')).toBe(true);
    expect((error as Error).message).toBe(
      "tool-agentpm: config.kill_grace (1 s) and config.kill_grace_ms (5 ms) disagree; give one (kill_grace, in seconds)\nFix these keys in the module's config.",
    );
  });

  it('describes every sandbox key of @amplifier/process, as it does', () => {
    for (const [key, schema] of Object.entries(SANDBOX_CONFIG_PROPERTIES)) {
      expect(Reflect.get(CONFIG_SCHEMA.properties, key)).toBe(schema);
    }
  });
});
