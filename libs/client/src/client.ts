import { Admin } from './admin';
import { Approvals } from './approvals';
import { HubHttp, type HttpOptions, type RequestOptions } from './http';
import { Schedules } from './schedules';
import type { StreamOptions } from './session-stream';
import { Sessions } from './sessions';
import { Webhooks } from './webhooks';

export interface HubClientOptions extends HttpOptions {
  /** Defaults for every session stream (reconnection limits, a WebSocket constructor of your own). */
  stream?: StreamOptions;
}

/**
 * A client of one hub with one API key: `sessions` (live streams, prompts, the log),
 * `approvals`, `admin`, `webhooks`, `schedules`, and `request` for any other route.
 *
 *   const hub = new HubClient({ baseUrl: 'http://localhost:8080', apiKey: process.env.HUB_API_KEY });
 *   const { outcome, state } = await hub.sessions.run('demo', 'read notes.txt');
 */
export class HubClient {
  readonly http: HubHttp;
  readonly sessions: Sessions;
  readonly approvals: Approvals;
  readonly admin: Admin;
  readonly webhooks: Webhooks;
  readonly schedules: Schedules;

  constructor(opts: HubClientOptions) {
    this.http = new HubHttp(opts);
    this.sessions = new Sessions(this.http, opts.stream ?? {});
    this.approvals = new Approvals(this.http);
    this.admin = new Admin(this.http);
    this.webhooks = new Webhooks(this.http);
    this.schedules = new Schedules(this.http);
  }

  /** Any route: JSON in and out, with the client's errors and retries. */
  request<T = unknown>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    return this.http.json<T>(method, path, o);
  }
}
