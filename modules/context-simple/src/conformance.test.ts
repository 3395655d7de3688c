import { contextConformance } from '@amplifier/core/testing';
import { mount } from './index.js';

contextConformance({ mount });
