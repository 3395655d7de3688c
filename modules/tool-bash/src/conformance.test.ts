import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toolConformance } from '@amplifier/testing';
import { afterAll } from 'vitest';
import { mount } from './index.js';

const workingDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-bash-conformance-'));
afterAll(() => fs.rmSync(workingDir, { recursive: true, force: true }));

toolConformance({ mount, config: { working_dir: workingDir }, tools: ['bash', 'bash_output', 'bash_kill'] });
