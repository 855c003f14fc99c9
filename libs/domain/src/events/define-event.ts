import { z } from 'zod';

// The one shape every event schema has, `{ type: <literal>, data: <object> }`, shared by the
// event files (events.ts, and the additive episode and live-input files it lists).

/** The zod schema of the event `type` with the data fields `data`. */
export const defineEvent = <T extends string, D extends z.ZodRawShape>(type: T, data: D) => z.object({ type: z.literal(type), data: z.object(data) });
