import { HubClient } from '@harness-hub/client';
import type { ApiPath, Approval, Ok, Problem, QueryOf } from './types';

/** An API error as problem+json tells it: HTTP status, the hub's code and its detail. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    /** The whole problem+json body (a refused policy's `path` and `issues`), when the hub sent one. */
    readonly problem: Partial<Problem> | null = null,
  ) {
    super(detail);
  }
}

/** A 404: no such thing for this key's tenant (another tenant's looks the same). */
export function isNotFound(e: unknown): boolean {
  return e instanceof ApiError && e.status === 404;
}

export async function problemOf(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as Partial<Problem> | null;
  return new ApiError(res.status, body?.code ?? `HTTP_${res.status}`, body?.detail ?? body?.title ?? res.statusText, body);
}

/**
 * The public HTTP API with the signed-in key. The key travels only in the Authorization header,
 * never in a URL (URLs end up in logs and history). A person signed in with the identity
 * provider has no key: the session cookie goes by itself, and `csrfToken` in `X-Hub-CSRF`.
 */
export class HubApi {
  constructor(
    private readonly key: string,
    private readonly csrfToken?: string,
  ) {}

  /** The API of a person's console session (cookie and CSRF token). */
  static forPerson(csrfToken: string): HubApi {
    return new HubApi('', csrfToken);
  }

  authHeaders(): Record<string, string> {
    return this.csrfToken !== undefined ? { 'X-Hub-CSRF': this.csrfToken } : { Authorization: `Bearer ${this.key}` };
  }

  private client: HubClient | undefined;

  /** The client library with the same credentials: the live session stream and the feeds (ADR 0046). */
  get hub(): HubClient {
    this.client ??= new HubClient({
      baseUrl: window.location.origin,
      apiKey: this.key,
      ...(this.csrfToken !== undefined ? { headers: { 'X-Hub-CSRF': this.csrfToken } } : {}),
    });
    return this.client;
  }

  /** GET a documented path (`{name}` segments from `params`); its query and its answer are typed by the document. */
  async get<P extends ApiPath>(path: P, params: Record<string, string> = {}, query: QueryOf<P, 'get'> = {} as QueryOf<P, 'get'>): Promise<Ok<P, 'get'>> {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query as Record<string, string | number | undefined>)) if (v !== undefined && v !== '') qs.set(k, String(v));
    const res = await fetch(`${fill(path, params)}${qs.size ? `?${qs}` : ''}`, { headers: { ...this.authHeaders(), Accept: 'application/json' } });
    if (!res.ok) throw await problemOf(res);
    return (await res.json()) as Ok<P, 'get'>;
  }

  async post<P extends ApiPath>(path: P, params: Record<string, string>, body: unknown): Promise<Ok<P, 'post'>> {
    const res = await fetch(fill(path, params), {
      method: 'POST',
      headers: { ...this.authHeaders(), 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw await problemOf(res);
    return (await res.json()) as Ok<P, 'post'>;
  }

  /**
   * Any method on a path whose answer the document does not describe yet (the admin keys and
   * limits, webhooks): the caller names the answer's type. One place for the headers and the
   * problem+json error, instead of a copy per screen.
   */
  async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(path, {
      method,
      headers: { ...this.authHeaders(), Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw await problemOf(res);
    return (await res.json()) as T;
  }

  sessions(q: QueryOf<'/v1/sessions', 'get'>) {
    return this.get('/v1/sessions', {}, q);
  }

  approvals(q: QueryOf<'/v1/approvals', 'get'> & { status: 'pending' | 'resolved' }) {
    return this.get('/v1/approvals', {}, q);
  }

  answer(a: Pick<Approval, 'sessionId' | 'approvalId'>, decision: 'approved' | 'denied', reason: string) {
    return this.post(
      '/v1/sessions/{id}/approvals/{approvalId}',
      { id: a.sessionId, approvalId: a.approvalId },
      { decision, ...(reason.trim() ? { reason: reason.trim() } : {}) },
    );
  }

  state(sessionId: string) {
    return this.get('/v1/sessions/{id}/state', { id: sessionId });
  }

  events(sessionId: string, after: number, limit: number) {
    return this.get('/v1/sessions/{id}/events', { id: sessionId }, { after, limit });
  }

  turns(sessionId: string, limit: number) {
    return this.get('/v1/sessions/{id}/turns', { id: sessionId }, { limit });
  }
}

/** `/v1/sessions/{id}/state` with `{ id }` → `/v1/sessions/s%201/state`. */
function fill(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`${path}: no value for {${name}}`);
    return encodeURIComponent(v);
  });
}
