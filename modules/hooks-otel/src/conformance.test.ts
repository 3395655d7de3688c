import { hookConformance } from '@amplifier/testing';
import { mount } from './index.js';

hookConformance({ mount });
hookConformance({ mount, config: { capture_content: true } });
