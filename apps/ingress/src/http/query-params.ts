import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';

/** One query parameter of an HTTP route, as the OpenAPI document shows it. */
export interface QueryParam {
  name: string;
  description: string;
  /** The values it takes, when it is one of a few. */
  enum?: readonly string[];
  integer?: { minimum: number; maximum: number; default?: number };
}

/**
 * The query parameters of a route, declared once: `document()` puts them in the OpenAPI document
 * and `names` is what the route's check accepts (`onlyKnown`), so what is documented is what is
 * taken and a parameter cannot be added to one without the other.
 */
export class QueryParams {
  readonly names: readonly string[];

  constructor(readonly params: readonly QueryParam[]) {
    this.names = params.map((p) => p.name);
  }

  document(): MethodDecorator {
    return applyDecorators(
      ...this.params.map((p) =>
        ApiQuery({
          name: p.name,
          required: false,
          description: p.description,
          schema: p.enum
            ? { type: 'string', enum: [...p.enum] }
            : p.integer
              ? { type: 'integer', minimum: p.integer.minimum, maximum: p.integer.maximum, default: p.integer.default }
              : { type: 'string' },
        }),
      ),
    );
  }
}
