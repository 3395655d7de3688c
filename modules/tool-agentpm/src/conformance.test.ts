import { toolConformance } from '@amplifier/testing';
import { NODE_TOOL, PYTHON_TOOL } from './__fixtures__/tools.js';
import { mount } from './index.js';

toolConformance({ mount, config: { tools: [NODE_TOOL, PYTHON_TOOL] }, tools: ['text_stats', 'word_freq'] });
