// #region readme
import { CancelledError, Coordinator } from '../../index.js';

const coordinator = new Coordinator();
const requested: unknown[] = [];
coordinator.hooks.register('cancel:requested', (_event, data) => {
  requested.push(data.level);
});

// Work in flight watches the coordinator's signal (orchestrators pass it to every tool call).
const { signal } = coordinator.cancellation;
const work = new Promise((_resolve, reject) => {
  signal.addEventListener('abort', () => reject(signal.reason), { once: true });
});

await coordinator.requestCancel(); // graceful: let running tools finish, stop at the next step
const afterGraceful = { graceful: coordinator.cancellation.isGraceful, aborted: signal.aborted }; // true, false

await coordinator.requestCancel({ immediate: true }); // immediate: the signal aborts now
const reason = await work.catch((error: unknown) => error);
const cancelled = reason instanceof CancelledError; // true

// requested: ['graceful', 'immediate']   (one cancel:requested event per change of state)
// #endregion

export { afterGraceful, cancelled, requested };
