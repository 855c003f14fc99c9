import type { JsonObject, Ok, Schedule } from './api-types';
import type { HubHttp } from './http';

const at = (id: string) => `/v1/schedules/${encodeURIComponent(id)}`;

/** Schedules of agent runs (cron or interval), their ticks, and running one now. */
export class Schedules {
  constructor(private readonly http: HubHttp) {}

  list(): Promise<Ok<'/v1/schedules', 'get'>> {
    return this.http.json('GET', '/v1/schedules');
  }

  /** A schedule; with a `clientKey` a repeat updates the schedule of that key (safe to retry). */
  create(body: JsonObject): Promise<Schedule> {
    return this.http.json('POST', '/v1/schedules', { body });
  }

  get(id: string): Promise<Schedule> {
    return this.http.json('GET', at(id));
  }

  update(id: string, body: JsonObject): Promise<Schedule> {
    return this.http.json('PUT', at(id), { body });
  }

  delete(id: string): Promise<JsonObject> {
    return this.http.json('DELETE', at(id));
  }

  pause(id: string, note?: string): Promise<Schedule> {
    return this.http.json('POST', `${at(id)}/pause`, { body: note === undefined ? {} : { note } });
  }

  resume(id: string, note?: string): Promise<Schedule> {
    return this.http.json('POST', `${at(id)}/resume`, { body: note === undefined ? {} : { note } });
  }

  trigger(id: string): Promise<JsonObject> {
    return this.http.json('POST', `${at(id)}/trigger`);
  }

  backfill(id: string, range: { from: string; to: string }): Promise<JsonObject> {
    return this.http.json('POST', `${at(id)}/backfill`, { body: range });
  }

  preview(id: string, count = 10): Promise<Ok<'/v1/schedules/{id}/preview', 'get'>> {
    return this.http.json('GET', `${at(id)}/preview`, { query: { count } });
  }

  ticks(id: string, limit = 100): Promise<Ok<'/v1/schedules/{id}/ticks', 'get'>> {
    return this.http.json('GET', `${at(id)}/ticks`, { query: { limit } });
  }
}
