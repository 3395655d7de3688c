import { orchestratorConformance } from '@amplifier/core/testing';
import { mount } from './index.js';

orchestratorConformance({ mount });
