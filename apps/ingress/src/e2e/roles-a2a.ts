import { TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { a2aClient, dataPart, sendParams, sendTask, userMessage } from '../a2a/testing/a2a-sdk';
import { fresh, idle, pending } from './roles-clients';
import type { Row } from './roles-row';
import type { Outcome, RolesWorld } from './roles-world';

// The role matrix's rows for A2A (roles-surfaces.ts merges them in), each done with the real
// @a2a-js/sdk client of the key: its card discovered, then the JSON-RPC call.

/** An A2A refusal as the matrix reads it: our FORBIDDEN code, or TaskNotFound. */
export function a2aOutcome(e: unknown): Outcome {
  const code = (e as { envelopeCode?: number }).envelopeCode;
  return code === -32051 ? 'forbidden' : code === -32001 ? 'not_found' : `A2A ${code} ${(e as Error).message}`;
}

async function withA2a(w: RolesWorld, key: string, f: (c: Client) => Promise<Outcome>): Promise<Outcome> {
  try {
    return await f(await a2aClient(w.url, key));
  } catch (e) {
    return a2aOutcome(e);
  }
}

/** The A2A task id of the session's latest turn (`<session>/<turn>`). */
async function taskOf(w: RolesWorld, session: string): Promise<string> {
  const requested = (await w.stack.events(w.tenantId, session)).filter((e) => e.type === 'TurnRequested').at(-1);
  return `${session}/${String((requested?.data as { turnId?: string } | undefined)?.turnId)}`;
}

const completed = (state: TaskState | undefined): Outcome => (state === TaskState.TASK_STATE_COMPLETED ? 'ok' : `task ${state}`);

export const A2A_ROWS: Record<string, Record<string, Row>> = {
  read: {
    'A2A GetTask': {
      prepare: idle,
      act: (w, who, c) => withA2a(w, w.keyOf(who), async (a) => completed((await a.getTask({ tenant: '', id: await taskOf(w, c.session) })).status?.state)),
    },
    'A2A ListTasks': {
      prepare: idle,
      act: (w, who, c) =>
        withA2a(w, w.keyOf(who), async (a) => {
          const listed = await a.listTasks({ tenant: '', contextId: c.session, status: 0, pageToken: '', statusTimestampAfter: undefined });
          // A list leaves out what the key may not see, as the HTTP lists do: not listed is not_found.
          return listed.tasks.length > 0 ? 'ok' : 'not_found';
        }),
    },
  },
  'submit a turn in a new session': {
    'A2A SendMessage': {
      act: (w, who) => withA2a(w, w.keyOf(who), async (a) => completed((await sendTask(a, sendParams(userMessage('hello')))).status?.state)),
    },
    'A2A SendMessage, a context id nobody has': {
      prepare: fresh,
      act: (w, who, c) =>
        withA2a(w, w.keyOf(who), async (a) => completed((await sendTask(a, sendParams(userMessage('hello', { contextId: c.session })))).status?.state)),
    },
  },
  'submit a turn in an existing session': {
    'A2A SendMessage': {
      prepare: idle,
      act: (w, who, c) =>
        withA2a(w, w.keyOf(who), async (a) => completed((await sendTask(a, sendParams(userMessage('hello', { contextId: c.session })))).status?.state)),
    },
  },
  'cancel a turn': {
    'A2A CancelTask': {
      prepare: pending,
      act: (w, who, c) =>
        withA2a(w, w.keyOf(who), async (a) => {
          const task = await a.cancelTask({ tenant: '', id: await taskOf(w, c.session), metadata: undefined });
          return task.status?.state === TaskState.TASK_STATE_CANCELED ? 'ok' : `task ${task.status?.state}`;
        }),
    },
  },
  'answer an approval': {
    'A2A message on the input-required task': {
      prepare: pending,
      act: (w, who, c) =>
        withA2a(w, w.keyOf(who), async (a) => {
          const task = await sendTask(
            a,
            sendParams(
              userMessage([dataPart({ decision: 'approved', approvalId: c.approvalId })], { taskId: await taskOf(w, c.session), contextId: c.session }),
              true,
            ),
          );
          return task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED ? 'still input-required' : 'ok';
        }),
    },
  },
};
