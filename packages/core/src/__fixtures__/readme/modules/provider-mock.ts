/** Stand-in for @amplifier/provider-mock in the README's composed session. */
import type { Coordinator } from '../../../index.js';
import { fakeProvider } from '../../sessions.js';

export function mount(coordinator: Coordinator): void {
  coordinator.mount('providers', fakeProvider('mock'));
}
