const FOLD_AT = 160;

/** One value, as text: long strings fold behind a summary, structures are pretty JSON. */
function Value({ value }: { value: unknown }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  if (text.length <= FOLD_AT && !text.includes('\n')) return <code className="arg-value">{text}</code>;
  return (
    <details className="arg-fold">
      <summary>
        <code>{text.slice(0, 80).split('\n')[0]}…</code> <span className="muted">({text.length} characters)</span>
      </summary>
      <pre className="arg-full">{text}</pre>
    </details>
  );
}

/** A tool's arguments, key by key. Everything is rendered as text, never as HTML. */
export function Arguments({ args }: { args: unknown }) {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return (
      <div className="args">
        <Value value={args} />
      </div>
    );
  }
  const entries = Object.entries(args as Record<string, unknown>);
  if (entries.length === 0) return <div className="args muted">no arguments</div>;
  return (
    <dl className="args">
      {entries.map(([k, v]) => (
        <div className="arg" key={k}>
          <dt>{k}</dt>
          <dd>
            <Value value={v} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
