/**
 * The least a context manager can do, for the context group: one array,
 * handed out as is (no copy, no token accounting, no compaction). A session
 * with it measures loop-basic and the session alone, so the difference to a
 * session with context-simple is what context-simple costs per step.
 * Loaded by the session's loader from a mount plan entry with `source: <this file>`.
 */
import type { ContextManager, Coordinator, Message } from '@amplifier/core';

class ArrayContext implements ContextManager {
  #messages: Message[] = [];
  async addMessage(message: Message): Promise<void> {
    this.#messages.push(message);
  }
  async getMessagesForRequest(): Promise<Message[]> {
    return this.#messages;
  }
  async getMessages(): Promise<Message[]> {
    return this.#messages;
  }
  async setMessages(messages: Message[]): Promise<void> {
    this.#messages = messages;
  }
  async clear(): Promise<void> {
    this.#messages = [];
  }
}

/** Mount the array context. */
export async function mount(coordinator: Coordinator): Promise<void> {
  coordinator.mount('context', new ArrayContext());
}
