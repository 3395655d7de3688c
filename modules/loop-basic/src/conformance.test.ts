import { orchestratorConformance } from '@amplifier/testing';
import { mount } from './index.js';

orchestratorConformance({ mount });
