import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import type { HarnessMessage } from '@hub/domain';
import { isNotFound, type HubApi } from '../api/client';
import { Arguments } from '../inbox/Arguments';
import { NotFound } from '../ui/NotFound';
import { TurnTimelines } from '../timeline/TurnTimelines';
import { useSessionUsage, useToolDetails, type ToolDetail } from './useSessionDetails';
import { useTransport } from './useTransport';

/**
 * A session page. The transport would answer any session id with an empty state (a session is
 * made by its first prompt), so the page first asks the HTTP API whether this key's tenant has
 * it: another tenant's session and one that does not exist both get the same "not found".
 */
export function SessionScreen({ api, sessionId }: { api: HubApi; sessionId: string }) {
  const exists = useQuery({ queryKey: ['session-exists', sessionId], queryFn: () => api.state(sessionId).then(() => true) });
  if (exists.isPending) return <p className="state loading">Loading session…</p>;
  if (isNotFound(exists.error)) return <NotFound sessionId={sessionId} />;
  if (exists.isError) {
    return (
      <p className="state error" role="alert">
        Could not load the session: {exists.error.message}
      </p>
    );
  }
  return <LiveSession key={sessionId} api={api} sessionId={sessionId} />;
}

/** One session live: its transcript, tool calls and approvals (answerable here), a prompt box and cancel. */
function LiveSession({ api, sessionId }: { api: HubApi; sessionId: string }) {
  const t = useTransport(api, sessionId);
  const queryClient = useQueryClient();
  // A socket the hub closed (a revoked key: 4401) or that cannot reconnect (an upgrade refused
  // with 401 looks like any drop to a browser) is asked about over HTTP: a 401 there signs the
  // tab out, a 404 (the session was erased) shows "not found".
  useEffect(() => {
    if (t.link === 'closed' || t.link === 'reconnecting') void queryClient.invalidateQueries({ queryKey: ['session-exists', sessionId] });
  }, [t.link, queryClient, sessionId]);
  const messages = t.state?.messages ?? [];
  const finishedCalls = messages.flatMap((m) => m.toolCalls ?? []).filter((c) => c.status !== 'running').length;
  const endedTurns = messages.filter((m) => m.role === 'assistant' && (m.status === 'complete' || m.status === 'error')).length;
  const tools = useToolDetails(api, sessionId, finishedCalls);
  const usage = useSessionUsage(api, sessionId, endedTurns);
  const [prompt, setPrompt] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (prompt.trim() && t.submit(prompt.trim())) setPrompt('');
  };
  const running = t.state?.status === 'running';
  return (
    <section className="screen session">
      <header className="session-head">
        <h1>{sessionId}</h1>
        <a href={`/console/sessions/${encodeURIComponent(sessionId)}/events`}>Run explorer</a>
        <span className={`link link-${t.link}`} role="status" data-cursor={t.cursor ?? ''}>
          {t.link}
          {t.cursor !== null ? ` · cursor ${t.cursor}` : ''}
        </span>
        <span className={`status status-${t.state?.status ?? 'new'}`}>{t.state?.status ?? 'new'}</span>
        {usage && (
          <span className="usage muted" title={`${usage.promptTokens} prompt + ${usage.completionTokens} completion tokens`}>
            {usage.totalTokens} tokens
          </span>
        )}
      </header>
      {t.errors.length > 0 && (
        <ul className="notices" role="alert">
          {t.errors.map((m, i) => (
            <li key={i} className="notice notice-error">
              {m}
            </li>
          ))}
        </ul>
      )}
      {t.link === 'connecting' ? (
        <p className="state loading">Connecting…</p>
      ) : !t.state || t.state.messages.length === 0 ? (
        <p className="state empty">No messages yet. Send a prompt to start this session.</p>
      ) : (
        <ol className="transcript">
          {t.state.messages.map((m) => (
            <Message key={m.id} m={m} tools={tools} onAnswer={t.answer} />
          ))}
        </ol>
      )}
      {t.state?.status === 'error' && t.state.error && <p className="state error">{t.state.error}</p>}
      <form className="prompt" onSubmit={submit}>
        <label htmlFor="prompt" className="visually-hidden">
          Prompt
        </label>
        <textarea id="prompt" rows={2} value={prompt} onChange={(e) => setPrompt(e.target.value)} placeholder="Send a prompt…" />
        <button type="submit" disabled={!prompt.trim() || t.link !== 'live'}>
          Send
        </button>
        <button type="button" className="deny" disabled={!running || t.link !== 'live'} onClick={t.cancel}>
          Cancel turn
        </button>
      </form>
      <TurnTimelines api={api} sessionId={sessionId} />
    </section>
  );
}

function Message({
  m,
  tools,
  onAnswer,
}: {
  m: HarnessMessage;
  tools: Map<string, ToolDetail>;
  onAnswer: (type: 'approve' | 'deny', approvalId: string) => void;
}) {
  return (
    <li className={`msg msg-${m.role}`} data-message-id={m.id} data-status={m.status}>
      <div className="msg-role muted">
        {m.role}
        {m.status !== 'complete' ? ` · ${m.status}` : ''}
        {m.stopReason ? ` · ${m.stopReason}` : ''}
      </div>
      {m.toolCalls?.map((c) => (
        <div key={c.id} className={`toolcall toolcall-${c.status}`} data-tool-call-id={c.id}>
          <span className="tool">{c.name}</span> <span className="muted">{c.status}</span>
          {c.approval && (
            <span className={`approval approval-${c.approval.status}`}>
              {' '}
              · approval {c.approval.status} ({c.approval.riskTier} risk)
              {c.approval.status === 'pending' && (
                <>
                  {' '}
                  <button type="button" className="approve" onClick={() => onAnswer('approve', c.approval?.id ?? '')}>
                    Approve
                  </button>{' '}
                  <button type="button" className="deny" onClick={() => onAnswer('deny', c.approval?.id ?? '')}>
                    Deny
                  </button>
                </>
              )}
            </span>
          )}
          <ToolIo detail={tools.get(c.id)} />
        </div>
      ))}
      <div className="msg-content">{m.content}</div>
    </li>
  );
}

/** A tool call's arguments and result, folded: the transcript stays readable. */
function ToolIo({ detail }: { detail: ToolDetail | undefined }) {
  if (!detail) return null;
  return (
    <details className="tool-io">
      <summary className="muted">arguments{detail.output !== undefined ? ' and result' : ''}</summary>
      <Arguments args={detail.input} />
      {detail.output !== undefined && <pre className="tool-output arg-full">{detail.output}</pre>}
    </details>
  );
}
