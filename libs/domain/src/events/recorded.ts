import type { EventMetadata } from '../metadata';
import type { HubEvent } from './events';

/**
 * An event as the log stores it: the event plus its envelope. `globalPosition` is the cursor
 * every outbound frame carries.
 */
export type Recorded<E extends { type: string; data: unknown } = HubEvent> = E & {
  eventId: string;
  tenantId: string;
  streamId: string;
  streamPosition: number;
  globalPosition: number;
  createdAt: string;
  metadata: EventMetadata;
};

const SESSION_PREFIX = 'session-';

/** Sessions are the hub's streams: one stream per session, all of its turns on it. */
export function sessionStreamId(sessionId: string): string {
  return `${SESSION_PREFIX}${sessionId}`;
}

export function sessionIdOf(streamId: string): string | null {
  return streamId.startsWith(SESSION_PREFIX) ? streamId.slice(SESSION_PREFIX.length) : null;
}

/** Session ids come from shells; keep them to a safe, bounded alphabet. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;
