import type { HubApi } from '../api/client';
import { KeysPanel } from './KeysPanel';
import { LimitsPanel } from './LimitsPanel';

/**
 * Administration of the tenant (issue 26), all through the public admin API: its API keys
 * (create with a role and an expiry, the secret shown once; list; revoke) and its limits. The hub
 * answers a key that is not an admin's with 403; the panels say so.
 */
export function AdminScreen({ api }: { api: HubApi }) {
  return (
    <section className="screen admin">
      <h1>Admin</h1>
      <KeysPanel api={api} />
      <LimitsPanel api={api} />
    </section>
  );
}
