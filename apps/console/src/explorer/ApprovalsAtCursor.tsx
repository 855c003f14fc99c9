import { approvedByText, countText, mayStillApproveText } from '../inbox/quorum';
import { actorName, protocolName } from '../ui/format';
import { approvalsOf } from './approvals-at';
import type { LoggedEvent } from './useEventLog';

/**
 * The session's approvals as they stood at the cursor: the policy rule and version that asked
 * (issue 23), and for one that needs several approvers, who approved and who may still (ADR 0048).
 */
export function ApprovalsAtCursor({ events }: { events: readonly LoggedEvent[] }) {
  const approvals = approvalsOf(events);
  if (approvals.length === 0) return null;
  return (
    <section className="approvals-at">
      <h2>Approvals</h2>
      <ul>
        {approvals.map((a) => (
          <li key={a.approvalId} className="approval-at" data-approval-id={a.approvalId}>
            <span className="tool">{a.toolName}</span> <span className={`decision decision-${a.status}`}>{a.status}</span>
            <div className="meta muted policy-rule">
              {a.policy ? `rule ${a.policy.rule} (#${a.policy.ruleIndex ?? 'default'}) of policy v${a.policy.version}` : 'asked by the tool’s own policy'}
            </div>
            {a.quorum && (
              <div className="meta quorum">
                {countText({ approvals: a.votes.length, required: a.quorum.required })} · {approvedByText(a.votes)}
                {a.status === 'pending' && mayStillApproveText({ ...a.quorum, approvals: a.votes.length })
                  ? ` · ${mayStillApproveText({ ...a.quorum, approvals: a.votes.length })}`
                  : ''}
              </div>
            )}
            {a.resolvedBy && (
              <div className="meta muted">
                {a.status} by {actorName(a.resolvedBy.by)} via {protocolName(a.resolvedBy.via)}
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
