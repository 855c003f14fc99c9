import { z } from 'zod';

/**
 * Field builders for environment variables. Every value arrives as a string (or not at all), so
 * each builder parses the string itself and carries a human-readable expectation (its zod
 * description) that `parseConfig` prints when the value is wrong.
 */

/** What a field accepts, in words, for error messages: "an integer between 1 and 65535". */
export function expectationOf(schema: z.ZodType): string | undefined {
  return schema.description;
}

/** Empty optional settings (`FOO=` in a compose file or .env) mean "not set". */
const blankToUndefined = (value: unknown): unknown => (value === '' ? undefined : value);

interface IntOptions {
  min: number;
  max: number;
}

function intSchema({ min, max }: IntOptions) {
  return z
    .string()
    .trim()
    .regex(/^[+-]?\d+$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

/** An integer in [min, max], parsed from a decimal string, with a default. */
export function envInt(options: IntOptions & { default: number }) {
  return intSchema(options).default(options.default).describe(`an integer between ${options.min} and ${options.max}`);
}

const BOOLEANS: Readonly<Record<string, boolean>> = { true: true, false: false, '1': true, '0': false };

/** A boolean written as true/false/1/0 (any case), with a default. */
export function envBool(options: { default: boolean }) {
  return z
    .string()
    .trim()
    .toLowerCase()
    .refine((value) => value in BOOLEANS)
    .transform((value) => BOOLEANS[value] === true)
    .default(options.default)
    .describe('one of true|false|1|0');
}

/** One of a fixed set of words, with a default. */
export function envEnum<const T extends readonly [string, ...string[]]>(values: T, options: { default: T[number] }) {
  return z
    .enum(values)
    .default(options.default as never)
    .describe(`one of ${values.join('|')}`);
}

function urlSchema(protocols: readonly string[]) {
  return z
    .string()
    .trim()
    .min(1)
    .refine((value) => {
      if (!URL.canParse(value)) return false;
      return protocols.includes(new URL(value).protocol.replace(/:$/, ''));
    });
}

function urlExpectation(protocols: readonly string[]): string {
  return `a non-empty ${protocols.join(' or ')} URL`;
}

/** A required URL with one of the given schemes; an empty string is an error, not the default. */
export function envUrl(protocols: readonly string[], options: { default: string }) {
  return urlSchema(protocols).default(options.default).describe(urlExpectation(protocols));
}

/** An optional URL; empty means unset. */
export function envOptionalUrl(protocols: readonly string[]) {
  return z.preprocess(blankToUndefined, urlSchema(protocols).optional()).describe(`${urlExpectation(protocols)} (or unset)`);
}

/** A free-form string matching `pattern` (described as `expected`), with a default. */
export function envString(options: { default: string; pattern: RegExp; expected: string }) {
  return z.string().trim().regex(options.pattern).default(options.default).describe(options.expected);
}

/** An optional free-form string (model names, API keys); empty means unset. */
export function envOptionalString(expected = 'a non-empty string (or unset)') {
  return z.preprocess(blankToUndefined, z.string().trim().min(1).optional()).describe(expected);
}
