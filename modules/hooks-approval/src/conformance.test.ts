import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hookConformance } from '@amplifier/testing';
import { afterAll } from 'vitest';
import { mount } from './index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hooks-approval-conformance-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

hookConformance({
  mount,
  config: { audit_file: path.join(dir, 'audit.jsonl') },
  events: ['tool:pre'],
  setup: (coordinator) => coordinator.registerCapability('session.directory', path.join(dir, 'session')),
});
