/**
 * @amplifier/core/testing: test doubles and conformance suites for module
 * authors. Suites use vitest (an optional peer dependency of core).
 */
export {
  createTestCoordinator,
  EventRecorder,
  MockContextManager,
  MockProvider,
  MockTool,
  TestCoordinator,
} from './mocks.js';
