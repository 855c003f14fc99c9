import type { ToolSpec } from '../providers/types';
import type { Tool } from './types';

/** The tools on offer in a session, by name. Names are unique: a duplicate is a wiring bug. */
export class ToolRegistry {
  private readonly byName = new Map<string, Tool>();

  constructor(tools: Tool[]) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`duplicate tool name: ${tool.name}`);
      this.byName.set(tool.name, tool);
    }
  }

  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  list(): Tool[] {
    return [...this.byName.values()];
  }

  /** What the model is told: name, description and input schema, in registration order. */
  specs(): ToolSpec[] {
    return this.list().map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
  }
}
