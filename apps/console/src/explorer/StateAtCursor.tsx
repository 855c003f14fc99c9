import type { HarnessState } from '@hub/domain';
import type { ReactNode } from 'react';

/**
 * The transport state at the explorer's cursor: the conversation as it stood, then the exact
 * JSON (what `GET /v1/sessions/ID/state` answers when the cursor is the session's last event).
 * `children`: more of the session as it stood at the cursor (its approvals), before the JSON.
 */
export function StateAtCursor({ state, cursor, children }: { state: HarnessState; cursor: number; children?: ReactNode }) {
  return (
    <section className="state-at" aria-label="State at the cursor">
      <p>
        <span className={`status status-${state.status}`}>{state.status}</span> · {state.messages.length} message{state.messages.length === 1 ? '' : 's'}
        {state.error ? <span className="error-text"> · {state.error}</span> : null}
      </p>
      {state.messages.length > 0 && (
        <ol className="transcript compact">
          {state.messages.map((m) => (
            <li key={m.id} className={`msg msg-${m.role}`}>
              <div className="msg-role muted">
                {m.role} · {m.status}
                {m.stopReason ? ` · ${m.stopReason}` : ''}
              </div>
              {m.toolCalls?.map((c) => (
                <div key={c.id} className={`toolcall toolcall-${c.status}`}>
                  <span className="tool">{c.name}</span> <span className="muted">{c.status}</span>
                  {c.approval ? <span className="muted"> · approval {c.approval.status}</span> : null}
                </div>
              ))}
              <div className="msg-content">{m.content}</div>
            </li>
          ))}
        </ol>
      )}
      {children}
      <details className="state-raw">
        <summary>State as JSON</summary>
        <pre className="state-json" data-cursor={cursor}>
          {JSON.stringify(state, null, 2)}
        </pre>
      </details>
    </section>
  );
}
