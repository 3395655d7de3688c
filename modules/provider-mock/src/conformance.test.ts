import { providerConformance } from '@amplifier/testing';
import { mount } from './index.js';

// No script: the fixed-text mode the minimal mount plan relies on.
providerConformance({ mount });
