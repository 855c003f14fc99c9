import { useEffect, useState } from 'react';
import type { HubApi } from '../api/client';
import { needsAdmin } from './KeysPanel';
import { LIMITS, useLimits, useSetLimits, type LimitName, type Limits } from './useAdmin';

type Draft = Record<LimitName, string>;

const draftOf = (l: Limits): Draft => Object.fromEntries(LIMITS.map(({ name }) => [name, l[name] === null ? '' : String(l[name])])) as Draft;
const limitsOf = (d: Draft): Limits => Object.fromEntries(LIMITS.map(({ name }) => [name, d[name].trim() === '' ? null : Number(d[name])])) as Limits;

/** The tenant's limits: each a positive whole number, or empty for no limit. Saved as the whole set. */
export function LimitsPanel({ api }: { api: HubApi }) {
  const q = useLimits(api);
  const save = useSetLimits(api);
  const [draft, setDraft] = useState<Draft | null>(null);
  useEffect(() => {
    if (q.data) setDraft(draftOf(q.data.limits));
  }, [q.data]);
  return (
    <section className="admin-panel" aria-labelledby="limits-title">
      <h2 id="limits-title">Limits</h2>
      {q.isPending || (q.isSuccess && draft === null) ? (
        <p className="state loading">Loading limits…</p>
      ) : q.isError ? (
        <p className="state error" role="alert">
          {needsAdmin(q.error) ? 'Limits need an admin key.' : `Could not load limits: ${q.error.message}`}
        </p>
      ) : (
        draft && (
          <form
            className="admin-form limits"
            aria-label="Limits"
            onSubmit={(e) => {
              e.preventDefault();
              save.mutate(limitsOf(draft));
            }}
          >
            <p className="muted">Empty: no limit. In force on every ingress within 2 s.</p>
            {LIMITS.map(({ name, label }) => (
              <label key={name}>
                {label}{' '}
                <input
                  type="number"
                  min={1}
                  step={1}
                  inputMode="numeric"
                  value={draft[name]}
                  onChange={(e) => setDraft({ ...draft, [name]: e.target.value })}
                />
              </label>
            ))}
            <button type="submit" disabled={save.isPending}>
              Save limits
            </button>
            {save.isError && (
              <p className="state error" role="alert">
                {save.error.message}
              </p>
            )}
            {save.isSuccess && !save.isPending && (
              <p className="state saved" role="status">
                Saved.
              </p>
            )}
          </form>
        )
      )}
    </section>
  );
}
