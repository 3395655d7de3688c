// A context manager for this package's tests: the history as a list, nothing else.
// (The bundles kit cannot use context-simple: context-simple depends on this kit.)
class ListContext {
  #messages = [];
  #factory = null;
  async addMessage(message) {
    this.#messages.push(message);
  }
  async setSystemPromptFactory(factory) {
    this.#factory = factory;
  }
  async getMessagesForRequest() {
    const rest = this.#messages.filter((m) => !(this.#factory !== null && m.role === 'system'));
    return this.#factory === null ? [...rest] : [{ role: 'system', content: await this.#factory() }, ...rest];
  }
  async getMessages() {
    return [...this.#messages];
  }
  async setMessages(messages) {
    this.#messages = [...messages];
  }
  async clear() {
    this.#messages = [];
  }
}

export async function mount(coordinator) {
  coordinator.mount('context', new ListContext());
}
