/**
 * What a rubric sees of one turn: the response and what happened during the turn. It runs after
 * the turn, outside the harness's loop (RFC 005 "Reward boundary"): the harness never calls it.
 */
export interface RubricInput {
  /** The user message of the turn. */
  message: string;
  /** The harness's answer for the turn. */
  response: string;
  /** Tools called during the turn, in order (a name per call). */
  toolCalls: readonly string[];
  /** Tools called so far in the whole episode, this turn included. */
  episodeToolCalls: readonly string[];
  /** How the turn ended. */
  status: 'completed' | 'failed' | 'cancelled' | 'awaiting_approval' | 'pending';
}

/** A rubric: parameters in, a pure score function out. Scores are in [0, 1]. */
export type RubricFactory = (params: Record<string, unknown>) => (input: RubricInput) => number;

const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || v.length === 0) throw new Error(`rubric parameter ${what} must be a non-empty string`);
  return v;
};
const strings = (v: unknown, what: string): string[] => {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new Error(`rubric parameter ${what} must be a list of strings`);
  return v as string[];
};

/** 1 when the response holds / equals / matches the expected answer, else 0. Failed turns score 0. */
const expectedAnswer: RubricFactory = (params) => {
  const expected = str(params['expected'], 'expected');
  const mode = params['mode'] ?? 'contains';
  const test =
    mode === 'exact'
      ? (r: string) => r.trim() === expected.trim()
      : mode === 'regex'
        ? (
            (re: RegExp) => (r: string) =>
              re.test(r)
          )(new RegExp(expected))
        : mode === 'contains'
          ? (r: string) => r.toLowerCase().includes(expected.toLowerCase())
          : null;
  if (!test) throw new Error(`rubric expected_answer: unknown mode ${String(mode)}`);
  return (input) => (input.status === 'completed' && test(input.response) ? 1 : 0);
};

/**
 * Tool usage over the episode so far: the share of `required` tools used, and 0 as soon as a
 * `forbidden` tool was called.
 */
const toolUsage: RubricFactory = (params) => {
  const required = strings(params['required'], 'required');
  const forbidden = strings(params['forbidden'], 'forbidden');
  if (required.length === 0 && forbidden.length === 0) throw new Error('rubric tool_usage needs required or forbidden tools');
  return (input) => {
    const used = new Set(input.episodeToolCalls);
    if (forbidden.some((t) => used.has(t))) return 0;
    if (required.length === 0) return 1;
    return required.filter((t) => used.has(t)).length / required.length;
  };
};

const RUBRICS = new Map<string, RubricFactory>([
  ['expected_answer', expectedAnswer],
  ['tool_usage', toolUsage],
]);

/** Adds a rubric kind (see libs/agent/src/rubrics/README.md). A taken name is refused. */
export function registerRubric(kind: string, factory: RubricFactory): void {
  if (RUBRICS.has(kind)) throw new Error(`rubric ${kind} is already registered`);
  RUBRICS.set(kind, factory);
}

/** The rubric kinds known to this process. */
export const rubricKinds = (): string[] => [...RUBRICS.keys()].sort();

/** A configured rubric (`{kind, ...params}`) as a score function; throws on an unknown kind or bad parameters. */
export function buildRubric(spec: { kind: string } & Record<string, unknown>): (input: RubricInput) => number {
  const factory = RUBRICS.get(spec.kind);
  if (!factory) throw new Error(`unknown rubric ${spec.kind} (known: ${rubricKinds().join(', ')})`);
  return factory(spec);
}
