import { z } from 'zod';
import { defineTool } from '../define';
import { ToolInputError } from '../types';
import { ArithmeticError, MAX_EXPRESSION_LENGTH, evaluateArithmetic, formatNumber } from './arithmetic';

/** `calculator {expression}`: safe arithmetic (`+ - * /`, parentheses, decimals). */
export const calculatorTool = defineTool({
  name: 'calculator',
  description: 'Evaluate an arithmetic expression with + - * / parentheses and decimals, e.g. (2 + 3) * 4.5',
  input: z.object({ expression: z.string().min(1).max(MAX_EXPRESSION_LENGTH).describe('the expression') }),
  policy: 'allow',
  riskTier: 'low',
  run({ expression }) {
    try {
      return formatNumber(evaluateArithmetic(expression));
    } catch (e: unknown) {
      if (e instanceof ArithmeticError) {
        throw new ToolInputError('calculator', `cannot evaluate "${expression}": ${e.message}`, [e.message]);
      }
      throw e;
    }
  },
});
