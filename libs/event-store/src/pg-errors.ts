const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET']);

/** Postgres errors carry a SQLSTATE `code`; Node socket errors carry an errno string there. */
export function errorCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e) {
    const code = (e as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** The constraint a unique violation hit, as Postgres names it. */
export function constraintOf(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'constraint' in e) {
    const c = (e as { constraint: unknown }).constraint;
    return typeof c === 'string' ? c : undefined;
  }
  return undefined;
}

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** `host:port/database` of a connection string, without credentials, for error messages. */
export function describeTarget(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname}`;
  } catch {
    return 'the configured address';
  }
}

/**
 * Turns a failed connect into one sentence an operator can act on; other errors pass through.
 * Node's AggregateError (one per resolved address) is unwrapped to its first cause.
 */
export function explainConnectError(e: unknown, connectionString: string): Error {
  const inner = e instanceof AggregateError && e.errors.length > 0 ? e.errors[0] : e;
  const code = errorCode(inner) ?? errorCode(e);
  const target = describeTarget(connectionString);
  if (code && CONNECT_CODES.has(code)) {
    return new Error(`cannot reach Postgres at ${target}: ${code}`, { cause: e });
  }
  if (code === '3D000' || code === '28P01' || code === '28000') {
    return new Error(`cannot connect to Postgres at ${target}: ${messageOf(e)}`, { cause: e });
  }
  return e instanceof Error ? e : new Error(String(e));
}
