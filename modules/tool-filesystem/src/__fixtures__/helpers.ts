/**
 * Test helpers: a real temp tree (the security catalogue's `ws/`, `ws-evil/`,
 * `outside/`), a hash of a tree to prove nothing outside changed, and a
 * mounted module on a test coordinator.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ToolResult } from '@amplifier/core';
import { createTestCoordinator, EventRecorder, type TestCoordinator } from '@amplifier/testing';
import { mount } from '../index.js';

export interface Tree {
  /** The temp root (real path). */
  root: string;
  ws: string;
  wsEvil: string;
  outside: string;
  secret: string;
  /** Random text inside outside/secret.txt; must never appear in a tool's output. */
  marker: string;
  cleanup(): void;
}

/** `T/ws`, `T/ws-evil`, `T/outside/secret.txt` (with a random marker) in a fresh temp dir. */
export function makeTree(): Tree {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'amp-fs-')));
  const ws = path.join(root, 'ws');
  const wsEvil = path.join(root, 'ws-evil');
  const outside = path.join(root, 'outside');
  for (const dir of [ws, wsEvil, outside]) fs.mkdirSync(dir);
  const marker = `MARKER-${randomBytes(8).toString('hex')}`;
  const secret = path.join(outside, 'secret.txt');
  fs.writeFileSync(secret, `${marker}\n`);
  fs.writeFileSync(path.join(wsEvil, 'x'), `${marker}\n`);
  return {
    root,
    ws,
    wsEvil,
    outside,
    secret,
    marker,
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/** SHA-256 over a tree: names, types, modes, contents and link targets (links not followed). */
export function hashTree(dir: string): string {
  const hash = createHash('sha256');
  const visit = (p: string, rel: string): void => {
    const stat = fs.lstatSync(p);
    hash.update(`${rel}\0${stat.mode}\0`);
    if (stat.isSymbolicLink()) hash.update(`L${fs.readlinkSync(p)}`);
    else if (stat.isDirectory()) {
      for (const name of fs.readdirSync(p).sort()) visit(path.join(p, name), `${rel}/${name}`);
    } else if (stat.isFile()) hash.update(fs.readFileSync(p));
    hash.update('\n');
  };
  if (fs.existsSync(dir)) visit(dir, '');
  return hash.digest('hex');
}

export interface Mounted {
  coordinator: TestCoordinator;
  events: EventRecorder;
  call(tool: string, input: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<ToolResult>;
  /** The output of a successful call (fails the test otherwise). */
  out(tool: string, input: Record<string, unknown>): Promise<Record<string, unknown>>;
  cleanup(): Promise<void>;
}

/** Mount the module on a bare test coordinator; `setup` runs before mount. */
export async function mountTools(
  config: Record<string, unknown>,
  setup?: (coordinator: TestCoordinator) => void,
): Promise<Mounted> {
  const coordinator = createTestCoordinator({ bare: true });
  setup?.(coordinator);
  const events = new EventRecorder();
  events.attach(coordinator.hooks, ['artifact:read', 'artifact:write']);
  const cleanup = await mount(coordinator, config);
  const call = (tool: string, input: Record<string, unknown>, options?: { signal?: AbortSignal }) => {
    const found = coordinator.get('tools', tool);
    if (found === undefined) throw new Error(`tool ${tool} is not mounted`);
    return found.execute(input, options);
  };
  return {
    coordinator,
    events,
    call,
    async out(tool, input) {
      const result = await call(tool, input);
      if (!result.success) throw new Error(`${tool} failed: ${result.error?.message}`);
      return result.output as Record<string, unknown>;
    },
    cleanup: async () => {
      await cleanup();
    },
  };
}

/** Make a FIFO with mkfifo(1). */
export function mkfifo(file: string): void {
  execFileSync('mkfifo', [file]);
}

export const isRoot: boolean = process.getuid?.() === 0;
