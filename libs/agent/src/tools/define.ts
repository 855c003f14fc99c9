import { z } from 'zod';
import type { RiskTier, ToolPolicyDecision } from '@hub/domain';
import { ToolInputError, type Tool, type ToolContext } from './types';

/** How a tool is declared: its input is one zod schema, which gives both validation and JSON Schema. */
export interface ToolDefinition<S extends z.ZodType> {
  name: string;
  description: string;
  input: S;
  policy: ToolPolicyDecision;
  riskTier: RiskTier;
  executor?: string;
  run(input: z.infer<S>, ctx: ToolContext): Promise<string> | string;
}

/**
 * Builds a {@link Tool} from a zod schema declared once: the model sees `z.toJSONSchema` of it,
 * and `execute` parses with it, so the schema the model is shown is the one enforced.
 */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): Tool {
  const inputSchema = toInputSchema(def.input);
  return {
    name: def.name,
    description: def.description,
    inputSchema,
    policy: def.policy,
    riskTier: def.riskTier,
    executor: def.executor ?? 'builtin',
    async execute(input: unknown, ctx: ToolContext): Promise<string> {
      const parsed = def.input.safeParse(input);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`);
        throw new ToolInputError(def.name, `invalid input for ${def.name}: ${issues.join('; ')}`, issues);
      }
      ctx.signal.throwIfAborted();
      return def.run(parsed.data, ctx);
    },
  };
}

function toInputSchema(schema: z.ZodType): Record<string, unknown> {
  // `io: 'input'` describes what the model may send (defaults optional), and the `$schema`
  // key is dropped because several providers reject unknown top-level keywords.
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  if (rest['type'] !== 'object') throw new Error('a tool input schema must be an object');
  return rest;
}
