import { contextConformance } from '@amplifier/testing';
import { mount } from './index.js';

contextConformance({ mount });
