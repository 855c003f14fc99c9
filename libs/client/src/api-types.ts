// The shapes of the hub's HTTP API, all from its OpenAPI document (generated/openapi.ts, written
// by apps/console/scripts/api-types.cjs from the running hub's /openapi.json): nothing here is a
// second copy of a schema.
import type { components, paths } from './generated/openapi';

/** The document itself, as openapi-typescript writes it: the console types its own calls from it. */
export type { components, paths };

type Schemas = components['schemas'];

export type HarnessState = Schemas['HarnessState'];
export type HarnessMessage = HarnessState['messages'][number];
export type Approval = Schemas['ApprovalView'];
export type ApprovalList = Schemas['ApprovalList'];
export type ApprovalAnswer = Schemas['ApprovalAnswer'];
export type SessionSummary = Schemas['SessionView'];
export type SessionList = Schemas['SessionList'];
export type SessionState = Schemas['SessionState'];
export type EventPage = Schemas['EventPage'];
export type RecordedEvent = Schemas['RecordedEvent'];
export type TurnList = Schemas['TurnList'];
export type Turn = Schemas['TurnView'];
export type Problem = Schemas['Problem'];
export type Schedule = Schemas['ScheduleView'];

export type ApiPath = keyof paths;
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A JSON object the document does not describe further (routes without a response schema). */
export type JsonObject = { [key: string]: unknown };

/** The JSON a path answers `method` with (its 200 or 201), as the document says; JsonObject where it says nothing. */
export type Ok<P extends ApiPath, M extends Method> = paths[P][M] extends { responses: { 200: { content: { 'application/json': infer T } } } }
  ? T
  : paths[P][M] extends { responses: { 201: { content: { 'application/json': infer T } } } }
    ? T
    : JsonObject;

/** The query parameters a path takes with `method`, as the document says (none: an empty object). */
export type QueryOf<P extends ApiPath, M extends Method> = paths[P][M] extends { parameters: { query?: infer Q } }
  ? [Q] extends [undefined]
    ? Record<string, never>
    : NonNullable<Q>
  : Record<string, never>;
