/**
 * The mounted tools as the loop needs them: the ToolSpecs offered to the
 * model, a lookup by name and alias, and each tool's compiled input
 * validator. Rebuilt only when the tools Map's contents change, so a step
 * costs one pass over the Map, not a rebuild of every spec.
 */
import { errorMessage, type Tool, type ToolSpec } from '@amplifier/core';
import { compileSchema, type DataValidator } from '@amplifier/schema';

/** A mounted tool with what the loop derived from it. */
export class ToolEntry {
  readonly name: string;
  readonly tool: Tool;
  #validate: DataValidator | { error: string } | undefined;

  constructor(name: string, tool: Tool) {
    this.name = name;
    this.tool = tool;
  }

  /**
   * Every problem of an input (empty when valid), or the reason the schema
   * cannot be used. Compiled on the tool's first call: a session mounts many
   * tools and its first steps call few of them.
   */
  get validate(): DataValidator | { error: string } {
    this.#validate ??= validatorFor(this.tool);
    return this.#validate;
  }
}

const EMPTY_OBJECT_SCHEMA = Object.freeze({ type: 'object', properties: Object.freeze({}) });

export class ToolTable {
  readonly #configAliases: ReadonlyMap<string, string>;
  #names: string[] = [];
  #tools: Tool[] = [];
  #specs: ToolSpec[] = [];
  #byName = new Map<string, ToolEntry>();
  #available = '';

  /** `aliases`: extra names from the loop's config (`{ Read: 'read_file' }`). */
  constructor(aliases: ReadonlyMap<string, string> = new Map()) {
    this.#configAliases = aliases;
  }

  /** Bring the table up to date with `tools` (cheap when nothing changed). */
  sync(tools: ReadonlyMap<string, Tool>): void {
    if (tools.size === this.#names.length) {
      let i = 0;
      let same = true;
      for (const [name, tool] of tools) {
        if (this.#names[i] !== name || this.#tools[i] !== tool) {
          same = false;
          break;
        }
        i++;
      }
      if (same) return;
    }
    this.#rebuild(tools);
  }

  /** The specs offered to the model (the same array until the tools change). */
  get specs(): ToolSpec[] {
    return this.#specs;
  }

  /** The tool a call names: its mount name first, then a config alias, then a tool's own alias. */
  lookup(name: string): ToolEntry | undefined {
    return this.#byName.get(name);
  }

  /** Mount names, comma-separated, for "not found" messages. */
  get available(): string {
    return this.#available;
  }

  #rebuild(tools: ReadonlyMap<string, Tool>): void {
    this.#names = [];
    this.#tools = [];
    this.#specs = [];
    const byName = new Map<string, ToolEntry>();
    const entries: ToolEntry[] = [];
    for (const [name, tool] of tools) {
      this.#names.push(name);
      this.#tools.push(tool);
      const entry = new ToolEntry(name, tool);
      entries.push(entry);
      byName.set(name, entry);
      const spec: ToolSpec = {
        name,
        description: tool.description ?? '',
        parameters: tool.inputSchema ?? EMPTY_OBJECT_SCHEMA,
        ...(tool.strict !== undefined && { strict: tool.strict }),
      };
      this.#specs.push(spec);
    }
    // Aliases never shadow a mounted name; config aliases win over a tool's own.
    for (const [alias, target] of this.#configAliases) {
      const entry = byName.get(target);
      if (entry !== undefined && !tools.has(alias)) byName.set(alias, entry);
    }
    for (const entry of entries) {
      for (const alias of entry.tool.aliases ?? []) {
        if (!byName.has(alias)) byName.set(alias, entry);
      }
    }
    this.#byName = byName;
    this.#available = this.#names.join(', ');
  }
}

function validatorFor(tool: Tool): ToolEntry['validate'] {
  const schema = tool.inputSchema;
  if (schema === undefined || Object.keys(schema).length === 0) return acceptAll;
  try {
    return compileSchema(schema);
  } catch (error) {
    return { error: `the tool's input schema is invalid (${errorMessage(error)})` };
  }
}

const acceptAll: DataValidator = () => [];
