/** Stand-in for @amplifier/context-simple in the README's composed session. */
import type { Coordinator } from '../../../index.js';
import { MemoryContext } from '../../sessions.js';

export function mount(coordinator: Coordinator): void {
  coordinator.mount('context', new MemoryContext());
}
