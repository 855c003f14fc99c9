import { useEffect, useId, useState } from 'react';
import { ApiError, type HubApi } from '../api/client';
import { needsAdmin } from '../admin/KeysPanel';
import { time } from '../ui/format';
import { RISK_TIERS, explainBody, fieldErrors, parseJson, ruleName, type ExplainDraft } from './policy-form';
import { useExplain, usePolicy, useSetPolicy, type PolicyExplanation, type PolicyView } from './usePolicy';

/**
 * The tenant's approval policy (issue 23), through the public admin API: the version in force and
 * who set it, the policy as JSON to edit (a refused one shows each bad field by its path, and
 * nothing changes), and explain: which rule decides a given tool call, and why. Every role but a
 * client's reads it and asks explain; only an admin saves.
 */
export function PolicyScreen({ api }: { api: HubApi }) {
  const q = usePolicy(api);
  return (
    <section className="screen admin policy">
      <h1>Approval policy</h1>
      {q.isPending ? (
        <p className="state loading">Loading the policy…</p>
      ) : q.isError ? (
        <p className="state error" role="alert">
          {needsAdmin(q.error) ? 'Reading the policy needs an admin, operator, approver or viewer key.' : `Could not load the policy: ${q.error.message}`}
        </p>
      ) : (
        <>
          <PolicyEditor api={api} current={q.data} />
          <ExplainForm api={api} />
        </>
      )}
    </section>
  );
}

function InForce({ current }: { current: PolicyView }) {
  return (
    <dl className="key-facts policy-version" aria-label="Policy in force">
      <dt>Version</dt>
      <dd data-version={current.version}>{current.version === 0 ? '0 (built in: each tool keeps its own default)' : current.version}</dd>
      <dt>Set</dt>
      <dd>{current.setAt ? time(current.setAt) : 'never'}</dd>
      <dt>By</dt>
      <dd>{current.setBy ? `${current.setBy.name ?? current.setBy.id} (${current.setBy.role ?? current.setBy.type})` : '—'}</dd>
    </dl>
  );
}

function PolicyEditor({ api, current }: { api: HubApi; current: PolicyView }) {
  const save = useSetPolicy(api);
  const [text, setText] = useState(() => JSON.stringify(current.policy, null, 2));
  const [base, setBase] = useState(current.version);
  const [local, setLocal] = useState<string | null>(null);
  const errorsId = useId();
  // A newer version read (saved here or elsewhere and re-read): shown as the text to edit.
  useEffect(() => {
    if (current.version !== base) {
      setText(JSON.stringify(current.policy, null, 2));
      setBase(current.version);
    }
  }, [current, base]);
  const fields = fieldErrors(save.error);
  const stale = save.error instanceof ApiError && save.error.status === 409;
  const invalid = local !== null || fields.length > 0;
  return (
    <section className="admin-panel" aria-labelledby="policy-edit-title">
      <h2 id="policy-edit-title">Policy in force</h2>
      <InForce current={current} />
      <form
        className="admin-form policy-form"
        aria-label="Edit the policy"
        onSubmit={(e) => {
          e.preventDefault();
          const parsed = parseJson(text);
          setLocal(parsed.ok ? null : parsed.message);
          if (parsed.ok) save.mutate({ policy: parsed.value, expectedVersion: base });
        }}
      >
        <label htmlFor="policy-json">Policy (JSON): rules in order, the first that matches decides, then the default</label>
        <textarea
          id="policy-json"
          className="json"
          rows={18}
          spellCheck={false}
          value={text}
          aria-invalid={invalid || undefined}
          aria-describedby={invalid ? errorsId : undefined}
          onChange={(e) => {
            setText(e.target.value);
            setLocal(null);
          }}
        />
        <button type="submit" disabled={save.isPending}>
          Save as version {base + 1}
        </button>
        <div id={errorsId}>
          {local !== null && (
            <p className="state error" role="alert">
              Not JSON: {local}
            </p>
          )}
          {fields.length > 0 ? (
            <div className="state error" role="alert">
              <p>The hub refused the policy; nothing changed:</p>
              <ul className="field-errors" aria-label="Refused fields">
                {fields.map((f, i) => (
                  <li key={i} data-path={f.at}>
                    <code>{f.at}</code>: {f.message}
                  </li>
                ))}
              </ul>
            </div>
          ) : stale ? (
            <p className="state error" role="alert">
              Someone changed the policy since it was read ({save.error?.message}); reload the page to edit the newer version.
            </p>
          ) : (
            save.isError && (
              <p className="state error" role="alert">
                {needsAdmin(save.error) ? 'Saving the policy needs an admin key.' : save.error.message}
              </p>
            )
          )}
          {save.isSuccess && !save.isPending && (
            <p className="state saved" role="status">
              Saved as version {save.data.version}.
            </p>
          )}
        </div>
      </form>
      <p className="muted">
        The hub keeps every version as an event on the tenant’s admin stream; its API shows the one in force. See <code>docs/approval-policy.md</code> for the
        rules’ fields.
      </p>
    </section>
  );
}

function ExplainForm({ api }: { api: HubApi }) {
  const explain = useExplain(api);
  const [draft, setDraft] = useState<ExplainDraft>({ tool: '', args: '{}', executor: '', riskTier: '' });
  const [local, setLocal] = useState<string | null>(null);
  const set = (k: keyof ExplainDraft) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });
  return (
    <section className="admin-panel" aria-labelledby="explain-title">
      <h2 id="explain-title">Explain a tool call</h2>
      <form
        className="admin-form explain-form"
        aria-label="Explain"
        onSubmit={(e) => {
          e.preventDefault();
          const built = explainBody(draft);
          setLocal(built.ok ? null : built.message);
          if (built.ok) explain.mutate(built.body);
        }}
      >
        <label>
          Tool <input value={draft.tool} onChange={set('tool')} required maxLength={200} placeholder="delete_file" />
        </label>
        <label htmlFor="explain-args">Arguments (JSON)</label>
        <textarea id="explain-args" className="json" rows={3} spellCheck={false} value={draft.args} onChange={set('args')} />
        <label>
          Executor (optional) <input value={draft.executor} onChange={set('executor')} maxLength={200} placeholder="mcp:payments" />
        </label>
        <label>
          Risk tier{' '}
          <select value={draft.riskTier} onChange={set('riskTier')}>
            <option value="">the tool’s own</option>
            {RISK_TIERS.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={explain.isPending}>
          Explain
        </button>
        {local !== null && (
          <p className="state error" role="alert">
            {local}
          </p>
        )}
        {explain.isError && (
          <p className="state error" role="alert">
            {explain.error.message}
          </p>
        )}
      </form>
      {explain.isSuccess && <Explanation x={explain.data} />}
    </section>
  );
}

function Explanation({ x }: { x: PolicyExplanation }) {
  return (
    <div className="explanation" role="region" aria-label="Explanation">
      <p>
        <strong className={`outcome outcome-${x.outcome}`} data-outcome={x.outcome}>
          {x.outcome}
        </strong>{' '}
        by <span data-rule={x.rule.id}>{ruleName(x.rule)}</span> <span className="muted">(policy version {x.version})</span>
      </p>
      <p className="reason" data-reason="">
        {x.reason}
      </p>
      {x.approval && (
        <p className="muted">
          Needs {x.approval.required} approval{x.approval.required === 1 ? '' : 's'}
          {x.approval.requesterMayApprove ? '' : ', not from the requester'}.
        </p>
      )}
      <table className="explain-trace">
        <caption>Rules looked at, in order</caption>
        <thead>
          <tr>
            <th scope="col">Rule</th>
            <th scope="col">Matched</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {x.trace.map((t) => (
            <tr key={t.index} data-rule={t.id}>
              <td>{t.id}</td>
              <td>{t.matched ? 'yes' : 'no'}</td>
              <td>{t.why}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
