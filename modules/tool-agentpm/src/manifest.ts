/**
 * The AgentPM tool manifest (`agent.json`): its types, the JSON Schema shipped
 * in `schemas/agent-manifest.json`, and the naming rules shared by the checks
 * (lint.ts), the loader and the tools.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { JSONSchema } from '@amplifier/core';

/** The manifest's file name inside a tool folder. */
export const MANIFEST_FILE = 'agent.json';

export type Severity = 'error' | 'warning';

/** One problem, the way a linter reports it: a JSON path inside agent.json ('' for the file itself). */
export interface ManifestProblem {
  path: string;
  message: string;
  severity: Severity;
}

export interface EnvVarSpec {
  required?: boolean;
  description?: string;
  default?: string;
}

/** A valid `agent.json` (see the README's table). */
export interface AgentManifest {
  $schema?: string;
  kind: 'tool';
  name: string;
  version: string;
  description: string;
  entrypoint: {
    command: string;
    args: string[];
    cwd?: string;
    timeout_ms?: number;
    env?: Record<string, string>;
  };
  inputs: JSONSchema;
  outputs: JSONSchema;
  files: string[];
  runtime?: { type: 'node' | 'python'; version?: string };
  environment?: { vars?: Record<string, EnvVarSpec> };
  readme?: string;
  license?: { spdx: string; file?: string };
  execution?: { serial?: boolean };
}

const requireJson = createRequire(import.meta.url);

/** The JSON Schema of `agent.json` shipped with this package (`@amplifier/tool-agentpm/schemas/agent-manifest.json`). */
export const AGENT_MANIFEST_SCHEMA: JSONSchema = requireJson('../schemas/agent-manifest.json') as JSONSchema;

/** Interpreters a manifest may name without a path. */
export const BARE_COMMANDS: readonly string[] = ['node', 'nodejs', 'python', 'python3'];

/** `node` or `python` from a command's file name (`/usr/bin/python3.12` is python), else undefined. */
export function interpreterFamily(command: string): 'node' | 'python' | undefined {
  const base = path.basename(command).toLowerCase();
  if (/^(node|nodejs)$/.test(base)) return 'node';
  if (/^python(3(\.\d+)?)?$/.test(base)) return 'python';
  return undefined;
}

/** The tool's name for the model: hyphens become underscores (`word-count` -> `word_count`). */
export function modelToolName(manifestName: string): string {
  return manifestName.replace(/-/g, '_');
}

/** Index of the entry script in `args`: the first argument not starting with `-`, or -1. */
export function scriptIndex(args: readonly string[]): number {
  return args.findIndex((arg) => !arg.startsWith('-'));
}
