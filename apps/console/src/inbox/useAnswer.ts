import { useMutation } from '@tanstack/react-query';
import { ApiError, type HubApi } from '../api/client';
import type { Approval } from '../api/types';
import { actorName, protocolName, time } from '../ui/format';

export interface Notice {
  kind: 'ok' | 'late' | 'error';
  text: string;
}

/**
 * Who answered an approval first, from the resolved inbox. The projection is one step behind the
 * log, so the answer that beat ours may take a moment to show there.
 */
async function whoAnswered(api: HubApi, a: Approval): Promise<Approval | null> {
  for (let i = 0; i < 20; i++) {
    const page = await api.approvals({ status: 'resolved', sessionId: a.sessionId, limit: 200 });
    const found = page.approvals.find((x) => x.approvalId === a.approvalId);
    if (found?.resolution) return found;
    await new Promise((r) => setTimeout(r, 250));
  }
  return null;
}

function lateNotice(a: Approval, won: Approval | null): Notice {
  if (!won?.resolution) return { kind: 'late', text: `${a.toolName}: someone else answered first.` };
  const r = won.resolution;
  return {
    kind: 'late',
    text: `${a.toolName} was already ${r.decision} by ${actorName(r.by)} via ${protocolName(r.via)} at ${time(r.at)}${r.reason ? ` (${r.reason})` : ''}.`,
  };
}

/** Approve or deny; the first answer wins, and a late one is told who was first. */
export function useAnswer(api: HubApi, onDone: (n: Notice) => void) {
  return useMutation({
    mutationFn: async ({ approval, decision, reason }: { approval: Approval; decision: 'approved' | 'denied'; reason: string }): Promise<Notice> => {
      try {
        const answered = await api.answer(approval, decision, reason);
        // An approval short of its quorum (ADR 0048): counted, and the call still waits for the rest.
        if (answered.status === 'pending')
          return { kind: 'ok', text: `${approval.toolName}: your approval counted, ${answered.approvals} of ${answered.required}; it waits for the rest.` };
        return { kind: 'ok', text: `${approval.toolName} ${decision}${reason.trim() ? `: ${reason.trim()}` : ''}.` };
      } catch (e) {
        if (e instanceof ApiError && e.code === 'APPROVAL_ALREADY_RESOLVED') return lateNotice(approval, await whoAnswered(api, approval));
        throw e;
      }
    },
    onSuccess: onDone,
    onError: (e) => onDone({ kind: 'error', text: e instanceof Error ? e.message : String(e) }),
  });
}
