/**
 * What a key may do (issue 16 enforces them on every surface; issue 17 the admin API):
 * - `admin`: everything in its tenant, plus its keys (and, later, limits and environments);
 * - `operator`: everything on sessions (what every key could do before roles);
 * - `approver`: read, and answer approvals;
 * - `viewer`: read only;
 * - `client`: open sessions and submit turns, read its own.
 */
export const ROLES = ['admin', 'operator', 'approver', 'viewer', 'client'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
