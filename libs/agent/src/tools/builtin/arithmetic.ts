/** Longest expression the calculator evaluates. */
export const MAX_EXPRESSION_LENGTH = 200;
const MAX_DEPTH = 32;

/** Why an expression was refused; the message is shown to the model. */
export class ArithmeticError extends Error {
  override readonly name = 'ArithmeticError';
}

/**
 * Evaluates `+ - * /`, unary signs, parentheses and decimals with the usual precedence, by
 * recursive descent over the characters: no `eval`/`Function`, so nothing but arithmetic runs.
 * The result is rounded to 12 significant digits so `0.1 + 0.2` reads `0.3`.
 */
export function evaluateArithmetic(expression: string): number {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new ArithmeticError(`expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  const parser = new Parser(expression);
  const value = parser.parse();
  if (!Number.isFinite(value)) throw new ArithmeticError('the result is not a finite number');
  return Number(value.toPrecision(12));
}

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly src: string) {}

  parse(): number {
    this.skipSpace();
    if (this.pos >= this.src.length) throw new ArithmeticError('empty expression');
    const value = this.sum();
    if (this.pos < this.src.length) throw this.unexpected();
    return value;
  }

  private sum(): number {
    let value = this.product();
    for (let op = this.peek(); op === '+' || op === '-'; op = this.peek()) {
      this.advance();
      const rhs = this.product();
      value = op === '+' ? value + rhs : value - rhs;
    }
    return value;
  }

  private product(): number {
    let value = this.unary();
    for (let op = this.peek(); op === '*' || op === '/'; op = this.peek()) {
      this.advance();
      const rhs = this.unary();
      if (op === '/' && rhs === 0) throw new ArithmeticError('division by zero');
      value = op === '*' ? value * rhs : value / rhs;
    }
    return value;
  }

  private unary(): number {
    const op = this.peek();
    if (op !== '+' && op !== '-') return this.primary();
    this.advance();
    const value = this.nested(() => this.unary());
    return op === '-' ? -value : value;
  }

  private primary(): number {
    if (this.peek() === '(') {
      this.advance();
      const value = this.nested(() => this.sum());
      if (this.peek() !== ')') throw this.unexpected('")"');
      this.advance();
      return value;
    }
    return this.number();
  }

  private number(): number {
    const match = /^(\d+(\.\d+)?|\.\d+)/.exec(this.src.slice(this.pos));
    if (!match) throw this.unexpected('a number');
    this.pos += match[0].length;
    this.skipSpace();
    return Number(match[0]);
  }

  // Bounds recursion so a hostile "((((...." cannot exhaust the stack.
  private nested(inner: () => number): number {
    if (++this.depth > MAX_DEPTH) throw new ArithmeticError(`nesting deeper than ${MAX_DEPTH}`);
    const value = inner();
    this.depth--;
    return value;
  }

  private peek(): string | undefined {
    return this.src[this.pos];
  }

  private advance(): void {
    this.pos++;
    this.skipSpace();
  }

  private skipSpace(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos] ?? '')) this.pos++;
  }

  private unexpected(expected?: string): ArithmeticError {
    const found = this.pos < this.src.length ? `"${this.src[this.pos]}"` : 'end of expression';
    const wanted = expected ? `, expected ${expected}` : '';
    return new ArithmeticError(`unexpected ${found} at position ${this.pos}${wanted}`);
  }
}

/** How a result is written back to the model: plain decimal, no exponent for ordinary sizes. */
export function formatNumber(value: number): string {
  return Object.is(value, -0) ? '0' : String(value);
}
