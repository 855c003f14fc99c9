import type { z } from 'zod';
import { ConfigError, type ConfigProblem } from './errors';
import { expectationOf } from './fields';
import { showValue } from './redact';
import { KNOWN_SETTINGS } from './schemas';
import { closestName } from './suggest';

/** The environment as Node gives it. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A config schema: a zod object whose keys are environment variable names. */
export type ConfigSchema = z.ZodObject;

/** Options for {@link parseConfig}. */
export interface ParseConfigOptions {
  /**
   * `HUB_*` names that are valid even though this schema does not read them (the settings of
   * the hub's other processes). Defaults to every name in every hub schema, so one .env can
   * serve ingress, worker and CLI, while a typo that no process reads is still an error.
   */
  readonly alsoKnown?: Iterable<string>;
}

const HUB_PREFIX = 'HUB_';

/**
 * Parses `env` through `schema` once, at boot. Throws a {@link ConfigError} naming every bad
 * variable (what was expected, what was given; secrets redacted) and every unknown `HUB_*`
 * variable (with a did-you-mean), so a typo in a setting is never silently ignored.
 */
export function parseConfig<S extends ConfigSchema>(schema: S, env: Env = process.env, options: ParseConfigOptions = {}): z.output<S> {
  const result = schema.safeParse(env);
  const problems = result.success ? [] : invalidValues(schema, env, result.error);
  problems.push(...unknownSettings(schema, env, options.alsoKnown ?? KNOWN_SETTINGS));
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  return result.data;
}

function invalidValues(schema: ConfigSchema, env: Env, error: z.ZodError): ConfigProblem[] {
  const shape = schema.shape as Record<string, z.ZodType>;
  const seen = new Set<string>();
  const problems: ConfigProblem[] = [];
  for (const issue of error.issues) {
    const name = String(issue.path[0] ?? '(root)');
    if (seen.has(name)) continue;
    seen.add(name);
    const field = shape[name];
    const expected = field === undefined ? undefined : expectationOf(field);
    // zod's own message is the fallback for fields built without an expectation; it never
    // contains the input value, so it is safe for secrets too.
    // A check that says exactly what is wrong (`params.exact`) wins over the field's expectation.
    const exact = issue.code === 'custom' && (issue.params as { exact?: boolean } | undefined)?.exact === true;
    const what = expected === undefined || exact ? issue.message : `expected ${expected}`;
    problems.push({ kind: 'invalid', name, message: `${what}, got ${showValue(name, env[name])}` });
  }
  return problems;
}

/**
 * What Kubernetes injects into every pod for each Service in the namespace ("service links"):
 * a Service named `hub` or `hub-worker` gives `HUB_SERVICE_HOST`, `HUB_PORT_8080_TCP_ADDR`,
 * `HUB_WORKER_SERVICE_PORT`... They are not settings; refusing them would stop every pod.
 */
const KUBERNETES_SERVICE_LINK = /^HUB(_[A-Z0-9_]+?)?_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?)$/;

function unknownSettings(schema: ConfigSchema, env: Env, alsoKnown: Iterable<string>): ConfigProblem[] {
  const known = new Set<string>([...Object.keys(schema.shape), ...alsoKnown]);
  const candidates = [...known].filter((name) => name.startsWith(HUB_PREFIX));
  return Object.keys(env)
    .filter((name) => name.startsWith(HUB_PREFIX) && !known.has(name) && !KUBERNETES_SERVICE_LINK.test(name))
    .sort()
    .map((name) => {
      const suggestion = closestName(name, candidates);
      const hint = suggestion === undefined ? '' : `; did you mean ${suggestion}?`;
      return { kind: 'unknown', name, message: `unknown setting ${name}${hint}` };
    });
}
