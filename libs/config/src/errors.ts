/**
 * One problem with the environment, by variable name: a value that does not parse (`invalid`,
 * its message already redacted for secrets) or a `HUB_*` name no hub process reads (`unknown`).
 */
export interface ConfigProblem {
  readonly kind: 'invalid' | 'unknown';
  readonly name: string;
  readonly message: string;
}

function line(problem: ConfigProblem): string {
  return problem.kind === 'unknown' ? `  ${problem.message}` : `  ${problem.name}: ${problem.message}`;
}

/**
 * Thrown by `parseConfig` when the environment is unusable. The message lists every problem at
 * once, so an operator fixes a deployment in one pass instead of one restart per variable.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(readonly problems: readonly ConfigProblem[]) {
    super(['Invalid configuration:', ...problems.map(line)].join('\n'));
  }
}
