import type { Tool } from '../types';
import { ToolRegistry } from '../registry';
import { calculatorTool } from './calculator';
import { deleteFileTool, listFilesTool, readFileTool, writeFileTool } from './files';

export { calculatorTool } from './calculator';
export { deleteFileTool, listFilesTool, readFileTool, writeFileTool } from './files';
export { evaluateArithmetic, ArithmeticError } from './arithmetic';

/** The hub's own tools, in the order the model is shown them. */
export const BUILTIN_TOOLS: readonly Tool[] = Object.freeze([readFileTool, listFilesTool, calculatorTool, writeFileTool, deleteFileTool]);

/** A registry holding the built-in tools (plus any extra ones, e.g. from MCP servers). */
export function createBuiltinRegistry(extra: Tool[] = []): ToolRegistry {
  return new ToolRegistry([...BUILTIN_TOOLS, ...extra]);
}
