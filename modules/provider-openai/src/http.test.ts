import { transportConformance } from '@amplifier/core/testing';
import { undiciTransport } from './http.js';

// The undici pool against a real local server: timeouts, abort, refused and
// dropped connections, early stops and close come out as the right LLMErrors.
transportConformance({ create: (baseUrl) => undiciTransport(baseUrl, 2) });
