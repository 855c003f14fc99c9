import type { EventPage, JsonObject, Ok, QueryOf, RecordedEvent, SessionState, SessionSummary } from './api-types';
import { HubError } from './errors';
import { EventFeed, type FeedOptions } from './event-feed';
import type { BusyPolicy } from './frames';
import type { HubHttp } from './http';
import { SessionStream, type StreamOptions } from './session-stream';

const at = (id: string) => `/v1/sessions/${encodeURIComponent(id)}`;

export interface SubmitOptions {
  /** The turn's id and the submit's idempotency key: the same key never runs twice. Random by default. */
  idempotencyKey?: string;
  busyPolicy?: BusyPolicy;
}

/** An `erased` event of the sessions feed: the session and everything of it is gone (the document describes it in words only). */
export interface SessionErasure {
  sessionId: string;
  erasedAt: string;
  position: number;
}

/** What the sessions feed's events carry: `session` a session's row as the list shows it, `erased` an erasure, `ready` where it starts. */
export type SessionFeedData = SessionSummary | SessionErasure | { position: number };

/** Sessions: a live stream of one, prompts (submit, cancel), and what the log holds (state, turns, events, export). */
export class Sessions {
  constructor(
    private readonly http: HubHttp,
    private readonly streamDefaults: StreamOptions,
  ) {}

  /** A live stream of the session (opened by its first prompt): state, deltas, commands; resumes across drops. */
  open(sessionId: string, o: StreamOptions = {}): SessionStream {
    return new SessionStream(this.http, sessionId, { ...this.streamDefaults, ...o });
  }

  /** Submits one prompt and resolves with its turn id once the hub has it (see SessionStream.submit). */
  async submit(sessionId: string, prompt: string, o: SubmitOptions = {}): Promise<string> {
    const s = this.open(sessionId);
    try {
      return await s.submit(prompt, o);
    } finally {
      s.close();
    }
  }

  /** Submits a prompt and waits for its turn to end: its id, how it ended, the state then. */
  async run(
    sessionId: string,
    prompt: string,
    o: SubmitOptions & { timeoutMs?: number } = {},
  ): Promise<{ turnId: string; outcome: 'ok' | 'failed'; state: SessionState['state'] }> {
    const s = this.open(sessionId);
    try {
      const turnId = await s.submit(prompt, o);
      const outcome = await s.turnEnded(turnId, { timeoutMs: o.timeoutMs });
      return { turnId, outcome, state: s.state as SessionState['state'] };
    } finally {
      s.close();
    }
  }

  /** Cancels the running turn; resolves once the session no longer runs, rejects with `no_active_turn` when none ran. */
  async cancel(sessionId: string, o: { timeoutMs?: number } = {}): Promise<void> {
    const s = this.open(sessionId);
    try {
      await s.waitFor(() => true, { timeoutMs: o.timeoutMs, what: 'the snapshot' });
      const refused = new Promise<never>((_, reject) =>
        s.subscribe((e) => {
          if (e.type === 'frame' && e.frame.type === 'error') reject(new HubError(e.frame.code ?? 'error', e.frame.message));
        }),
      );
      s.cancel();
      await Promise.race([s.waitFor((st) => st.status !== 'running', { timeoutMs: o.timeoutMs, what: 'the turn to stop' }), refused]);
    } finally {
      s.close();
    }
  }

  /**
   * The live sessions feed: `ready` (where it starts: the tenant's newest session, or `after`),
   * then a `session` event each time one moves (its row as `list` shows it) and an `erased` event
   * for each one erased, `id` their position; resumes after the last across drops. Filters are
   * the reader's to apply. A client key's feed holds the sessions it opened only.
   */
  feed(o: FeedOptions = {}): EventFeed<SessionFeedData> {
    return new EventFeed<SessionFeedData>(this.http, '/v1/sessions/stream', o);
  }

  list(query: QueryOf<'/v1/sessions', 'get'> = {}): Promise<Ok<'/v1/sessions', 'get'>> {
    return this.http.json('GET', '/v1/sessions', { query: query as Record<string, string> });
  }

  /** The state folded from the log, with the cursor it is current at (a stream resumes from it). */
  state(sessionId: string): Promise<SessionState> {
    return this.http.json('GET', `${at(sessionId)}/state`);
  }

  turns(sessionId: string): Promise<Ok<'/v1/sessions/{id}/turns', 'get'>> {
    return this.http.json('GET', `${at(sessionId)}/turns`);
  }

  /** One page of the log: events after stream position `after` (exclusive); `next` is the following page's `after`. */
  events(sessionId: string, o: { after?: number; limit?: number } = {}): Promise<EventPage> {
    return this.http.json('GET', `${at(sessionId)}/events`, { query: o });
  }

  /** Every event of the session, page by page. */
  async *allEvents(sessionId: string, o: { after?: number; limit?: number } = {}): AsyncGenerator<RecordedEvent> {
    let after: number | null = o.after ?? 0;
    while (after !== null) {
      const page: EventPage = await this.events(sessionId, { after, limit: o.limit });
      yield* page.events;
      after = page.next;
    }
  }

  /** The whole log as stored, with hashes (NDJSON, one object a line), streamed: `hub audit verify --file` checks it. */
  async *export(sessionId: string): AsyncGenerator<JsonObject> {
    const res = await this.http.send('GET', `${at(sessionId)}/export`, { headers: { accept: 'application/x-ndjson' } });
    if (!res.body) return;
    let rest = '';
    // A reader, not `for await` over the stream: browsers without async-iterable streams (Safari)
    // and the DOM typings the console compiles against have only the reader.
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        const lines = (rest + read.value).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) yield JSON.parse(line) as JsonObject;
      }
    } finally {
      // A caller that stops early (break) must not leave the response open.
      await reader.cancel().catch(() => undefined);
    }
    if (rest.trim()) yield JSON.parse(rest) as JsonObject;
  }

  /** Erases the session (admin key). */
  erase(sessionId: string): Promise<JsonObject> {
    return this.http.json('DELETE', at(sessionId));
  }

  /** A new session starting from this one's log at a position; the idempotency key makes a retry return the same fork. */
  fork(sessionId: string, body: { sessionId?: string; at?: number } = {}, o: { idempotencyKey?: string } = {}): Promise<JsonObject> {
    return this.http.json('POST', `${at(sessionId)}/fork`, { body, idempotencyKey: o.idempotencyKey });
  }
}
