// The shapes of the public API the console reads, all from the hub's OpenAPI document
// (libs/client/src/generated/openapi.ts, written by scripts/api-types.cjs, imported through the
// client library): nothing here is a second copy.
import type { components, paths } from '@harness-hub/client';

type Schemas = components['schemas'];

export type Actor = Schemas['Actor'];
export type Approval = Schemas['ApprovalView'];
export type Usage = Schemas['Usage'];
export type SessionSummary = Schemas['SessionView'];
export type RecordedEvent = Schemas['RecordedEvent'];
export type Problem = Schemas['Problem'];
export type Schedule = Schemas['ScheduleView'];

export type ApiPath = keyof paths;

/** The JSON body a path answers `method` with (its 200), as the document says. */
export type Ok<P extends ApiPath, M extends 'get' | 'post'> = paths[P][M] extends { responses: { 200: { content: { 'application/json': infer T } } } }
  ? T
  : never;

/** The query parameters a path takes with `method`, as the document says (none: an empty object). */
export type QueryOf<P extends ApiPath, M extends 'get' | 'post'> = paths[P][M] extends { parameters: { query?: infer Q } }
  ? [Q] extends [undefined]
    ? Record<string, never>
    : NonNullable<Q>
  : Record<string, never>;

type SessionStatus = SessionSummary['status'];
type Protocol = NonNullable<SessionSummary['openedVia']>;

/** Every member of `T`, checked at compile time: a value the document adds must be listed here. */
function all<T extends string>() {
  return <const L extends readonly T[]>(list: L & ([T] extends [L[number]] ? unknown : 'misses a value of the API')) => list;
}

export const SESSION_STATUSES = all<SessionStatus>()(['idle', 'running', 'awaiting_approval']);
export const PROTOCOLS = all<Protocol>()(['transport', 'openharness', 'zene', 'openenv', 'acp', 'a2a', 'ag-ui', 'internal', 'cli']);
