import { toolConformance } from '@amplifier/testing';
import { mount } from './index.js';

toolConformance({ mount, config: {}, tools: ['web_fetch', 'web_search'] });
