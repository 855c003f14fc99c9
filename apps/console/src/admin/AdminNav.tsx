/** The admin area's pages: keys and limits, the approval policy, the identity provider. */
const PAGES = [
  { path: '/admin', label: 'Keys and limits' },
  { path: '/admin/policy', label: 'Approval policy' },
  { path: '/admin/idp', label: 'Identity provider' },
] as const;

export function AdminNav({ route }: { route: string }) {
  const here = PAGES.slice()
    .reverse()
    .find((p) => route === p.path || route.startsWith(`${p.path}/`))?.path;
  return (
    <nav className="admin-nav" aria-label="Admin">
      {PAGES.map((p) => (
        <a key={p.path} href={`/console${p.path}`} aria-current={here === p.path ? 'page' : undefined}>
          {p.label}
        </a>
      ))}
    </nav>
  );
}
