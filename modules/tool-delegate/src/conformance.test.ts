import { toolConformance } from '@amplifier/testing';
import { mount } from './index.js';

toolConformance({ mount, tools: ['delegate'] });
