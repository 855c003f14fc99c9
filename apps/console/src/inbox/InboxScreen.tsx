import { useCallback, useEffect, useState } from 'react';
import type { HubApi } from '../api/client';
import type { Approval } from '../api/types';
import { useNow } from '../ui/useNow';
import { ApprovalCard } from './ApprovalCard';
import { ConfirmDialog } from './ConfirmDialog';
import { ResolvedList } from './ResolvedList';
import { useAnswer, type Notice } from './useAnswer';
import type { ApprovalFeed } from './useApprovalFeed';
import { FeedBadge } from '../ui/FeedBadge';

const HIGH_RISK = new Set(['high', 'critical']);

function typing(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/** Pending approvals across the tenant's sessions and protocols, live; one answer per key. */
export function InboxScreen({ api, feed }: { api: HubApi; feed: ApprovalFeed }) {
  const [tab, setTab] = useState<'pending' | 'resolved'>('pending');
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [reasons, setReasons] = useState<Record<string, string>>({});
  const [notices, setNotices] = useState<Notice[]>([]);
  const [confirming, setConfirming] = useState<Approval | null>(null);
  const now = useNow();
  const answer = useAnswer(api, (n) => setNotices((prev) => [n, ...prev].slice(0, 5)));
  const { pending } = feed;
  const index = Math.max(
    0,
    pending.findIndex((a) => a.approvalId === selectedId),
  );
  const selected: Approval | undefined = pending[index];

  const send = useCallback(
    (a: Approval, decision: 'approved' | 'denied', confirmed = false) => {
      if (decision === 'approved' && HIGH_RISK.has(a.riskTier) && !confirmed) return setConfirming(a);
      setConfirming(null);
      answer.mutate({ approval: a, decision, reason: reasons[a.approvalId] ?? '' });
    },
    [answer, reasons],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (tab !== 'pending' || confirming || typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const move = (by: number) => pending.length && setSelectedId(pending[Math.min(pending.length - 1, Math.max(0, index + by))].approvalId);
      if (e.key === 'j' || e.key === 'ArrowDown') move(1);
      else if (e.key === 'k' || e.key === 'ArrowUp') move(-1);
      else if (e.key === 'a' && selected) send(selected, 'approved');
      else if (e.key === 'd' && selected) send(selected, 'denied');
      else if (e.key === 'r' && selected) document.querySelector<HTMLInputElement>(`[data-approval-id="${selected.approvalId}"] .reason`)?.focus();
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [tab, confirming, pending, index, selected, send]);

  return (
    <section className="screen inbox">
      <div className="tabs">
        {/* A tablist holds tabs only (axe: aria-required-children); the feed's status sits beside it. */}
        <div role="tablist" aria-label="Approvals">
          <button role="tab" type="button" aria-selected={tab === 'pending'} onClick={() => setTab('pending')}>
            Pending <span className="count">{pending.length}</span>
          </button>
          <button role="tab" type="button" aria-selected={tab === 'resolved'} onClick={() => setTab('resolved')}>
            Resolved
          </button>
        </div>
        <FeedBadge status={feed.status} error={feed.error} />
      </div>
      <ul className="notices" aria-live="polite">
        {notices.map((n, i) => (
          <li key={i} className={`notice notice-${n.kind}`}>
            {n.text}
          </li>
        ))}
      </ul>
      {tab === 'resolved' ? (
        <ResolvedList api={api} />
      ) : feed.status === 'connecting' ? (
        <p className="state loading">Loading pending approvals…</p>
      ) : pending.length === 0 ? (
        <p className="state empty">Nothing waits for an answer. New approvals appear here as they are requested.</p>
      ) : (
        <>
          <p className="hint muted">
            <kbd>j</kbd>/<kbd>k</kbd> or arrows move, <kbd>a</kbd> approves, <kbd>d</kbd> denies, <kbd>r</kbd> types a reason.
          </p>
          <ul className="cards">
            {pending.map((a) => (
              <ApprovalCard
                key={a.approvalId}
                approval={a}
                selected={a === selected}
                busy={answer.isPending && answer.variables?.approval.approvalId === a.approvalId}
                now={now}
                reason={reasons[a.approvalId] ?? ''}
                onReason={(text) => setReasons((r) => ({ ...r, [a.approvalId]: text }))}
                onSelect={() => setSelectedId(a.approvalId)}
                onAnswer={(d) => send(a, d)}
              />
            ))}
          </ul>
        </>
      )}
      {confirming && (
        <ConfirmDialog
          title={`Approve ${confirming.toolName}?`}
          body={`This tool is ${confirming.riskTier} risk. It will run with the arguments shown as soon as you confirm.`}
          confirmLabel={`Approve ${confirming.toolName}`}
          onConfirm={() => send(confirming, 'approved', true)}
          onCancel={() => setConfirming(null)}
        />
      )}
    </section>
  );
}
