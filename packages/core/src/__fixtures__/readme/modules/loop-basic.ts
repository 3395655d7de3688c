/** Stand-in for @amplifier/loop-basic in the README's composed session: calls the one tool with the prompt. */
import type { Coordinator, Orchestrator } from '../../../index.js';

const callTheTool: Orchestrator = {
  async execute(prompt, { tools }) {
    const [tool] = tools.values();
    const result = await tool?.execute({ text: prompt });
    return String(result?.output ?? result?.error?.message);
  },
};

export function mount(coordinator: Coordinator): void {
  coordinator.mount('orchestrator', callTheTool);
}
