import type { Approval } from '../api/types';
import { ago, deadline, protocolName } from '../ui/format';
import { Arguments } from './Arguments';
import { approvedByText, countText, mayStillApproveText } from './quorum';

export interface CardProps {
  approval: Approval;
  selected: boolean;
  busy: boolean;
  now: number;
  reason: string;
  onReason: (text: string) => void;
  onSelect: () => void;
  onAnswer: (decision: 'approved' | 'denied') => void;
}

/** One pending approval: what would run, how risky, where it came from, and the two answers. */
export function ApprovalCard({ approval: a, selected, busy, now, reason, onReason, onSelect, onAnswer }: CardProps) {
  return (
    <li className={`card${selected ? ' selected' : ''}`} aria-current={selected ? 'true' : undefined} data-approval-id={a.approvalId} onClick={onSelect}>
      <header className="card-head">
        <span className="tool">{a.toolName}</span>
        <span className={`risk risk-${a.riskTier}`}>{a.riskTier} risk</span>
        <span className="muted age" title={a.requestedAt}>
          {ago(a.requestedAt, now)}
        </span>
        <span className="muted deadline" title={a.deadlineAt ?? ''}>
          {deadline(a.deadlineAt, now)}
        </span>
      </header>
      <Arguments args={a.arguments} />
      {/* Why it asks: the policy rule that matched (issue 23) names itself in the reason. */}
      <p className="meta ask-reason">{a.reason}</p>
      {a.quorum && (
        <p className="meta quorum">
          <strong className="quorum-count">{countText(a.quorum)}</strong> · {approvedByText(a.quorum.votes)}
          {mayStillApproveText(a.quorum) ? ` · ${mayStillApproveText(a.quorum)}` : ''}
        </p>
      )}
      <p className="meta muted">
        session{' '}
        <a href={`/console/sessions/${encodeURIComponent(a.sessionId)}`} className="session-link">
          {a.sessionId}
        </a>{' '}
        · via {protocolName(a.requestedVia)}
      </p>
      <div className="answer">
        <input
          type="text"
          className="reason"
          placeholder="Reason (optional)"
          aria-label={`Reason for ${a.toolName}`}
          value={reason}
          onChange={(e) => onReason(e.target.value)}
        />
        <button type="button" className="approve" disabled={busy} onClick={(e) => (e.stopPropagation(), onAnswer('approved'))}>
          Approve <kbd>a</kbd>
        </button>
        <button type="button" className="deny" disabled={busy} onClick={(e) => (e.stopPropagation(), onAnswer('denied'))}>
          Deny <kbd>d</kbd>
        </button>
      </div>
    </li>
  );
}
