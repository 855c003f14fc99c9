import { HttpAgent, type RunAgentParameters } from '@ag-ui/client';
import { fresh, idle, moved, pending } from './roles-clients';
import type { Row } from './roles-row';
import { httpOutcome, type Outcome, type RolesWorld } from './roles-world';

// The role matrix's rows for AG-UI (roles-surfaces.ts merges them in), each done with the real
// @ag-ui/client HttpAgent of the key. A refusal is the problem+json status the agent's error
// carries; a run that streams to its end is `ok`.

async function agUi(w: RolesWorld, key: string, threadId: string, prompt: string | null, params: RunAgentParameters = {}): Promise<Outcome> {
  const agent = new HttpAgent({ url: `${w.url}/v1/ag-ui`, headers: { Authorization: `Bearer ${key}` }, threadId });
  if (prompt !== null) agent.addMessage({ id: w.fresh('agui-u'), role: 'user', content: prompt });
  try {
    await agent.runAgent(params);
    return 'ok';
  } catch (e) {
    const status = (e as { status?: number }).status;
    return status === undefined ? `AG-UI ${(e as Error).message}` : httpOutcome(status);
  }
}

export const AG_UI_ROWS: Record<string, Record<string, Row>> = {
  read: { 'AG-UI run without a prompt (watch)': { prepare: idle, act: (w, who, c) => agUi(w, w.keyOf(who), c.session, null) } },
  'submit a turn in a new session': { 'AG-UI run': { prepare: fresh, act: (w, who, c) => agUi(w, w.keyOf(who), c.session, 'hello') } },
  'submit a turn in an existing session': { 'AG-UI run': { prepare: idle, act: (w, who, c) => agUi(w, w.keyOf(who), c.session, 'hello') } },
  'answer an approval': {
    'AG-UI resume': {
      prepare: pending,
      async act(w, who, c) {
        const outcome = await agUi(w, w.keyOf(who), c.session, null, {
          resume: [{ interruptId: String(c.approvalId), status: 'resolved', payload: { decision: 'approved' } }],
        });
        if (outcome !== 'ok') return outcome;
        // Accepted: the answer is in the log, not just "no refusal".
        for (let i = 0; i < 400 && !(await moved(w, c)()); i++) await new Promise((r) => setTimeout(r, 25));
        return (await moved(w, c)()) ? 'ok' : 'accepted but the approval did not move';
      },
    },
  },
};
