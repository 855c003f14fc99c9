import { ADMIN_STREAM_ID, DomainError, isDomainError, type Actor, type EventMetadata } from '@hub/domain';
import { BUILTIN_POLICY, type TenantPolicy } from './schema';
import { parsePolicy, unenforcedTerms, type PolicyIssue } from './validate';

// Where a tenant's policy lives: `ApprovalPolicySet` events on its admin stream, the last one in
// force. Reading the current one is one indexed row (the last of its type on one stream), so the
// worker reads it once per job instead of caching it: a policy set a moment ago applies to the
// next tool call any worker decides.

/** The slice of the event store this needs (the real one is @hub/event-store's `EventStore`). */
export interface PolicyLog {
  lastOfType(tenantId: string, streamId: string, type: string): Promise<{ data: unknown; createdAt: string; metadata: EventMetadata } | null>;
  streamVersion(tenantId: string, streamId: string): Promise<number>;
  append(
    tenantId: string,
    streamId: string,
    events: { type: string; data: unknown; metadata: EventMetadata }[],
    opts: { expectedVersion: number },
  ): Promise<unknown>;
}

/** The tenant's policy in force: version 0 is the built-in one (no admin set a policy yet). */
export interface CurrentPolicy {
  version: number;
  policy: TenantPolicy;
  setAt: string | null;
  setBy: Actor | null;
}

export const POLICY_EVENT = 'ApprovalPolicySet';

/** A policy an admin sent that `parsePolicy` refused: nothing was recorded. */
export class InvalidPolicyError extends DomainError<'INVALID_COMMAND'> {
  constructor(readonly issues: PolicyIssue[]) {
    const first = issues[0];
    super('INVALID_COMMAND', `invalid policy at ${jsonPath(first.path)}: ${first.message}`, {
      path: jsonPath(first.path),
      issues: issues.map((i) => ({ ...i, at: jsonPath(i.path) })),
    });
  }
}

/** `$.rules[2].match.tool`: the path style the hub's problem+json `path` uses. */
export function jsonPath(path: readonly (string | number)[]): string {
  return path.reduce<string>((s, p) => (typeof p === 'number' ? `${s}[${p}]` : `${s}.${p}`), '$');
}

export class TenantPolicies {
  constructor(private readonly log: PolicyLog) {}

  async current(tenantId: string): Promise<CurrentPolicy> {
    const last = await this.log.lastOfType(tenantId, ADMIN_STREAM_ID, POLICY_EVENT);
    if (!last) return { version: 0, policy: BUILTIN_POLICY, setAt: null, setBy: null };
    const data = last.data as { version: number; policy: unknown };
    const parsed = parsePolicy(data.policy);
    // Recorded only after this same check: a failure here is a log written by a newer hub.
    if (!parsed.ok)
      throw new Error(`tenant ${tenantId}'s approval policy v${data.version} does not parse here: ${parsed.issues[0]?.at} ${parsed.issues[0]?.message}`);
    return { version: data.version, policy: parsed.policy, setAt: last.createdAt, setBy: last.metadata.actor ?? null };
  }

  /**
   * Validates `input` and records it as the next version. `expectedVersion` (optional) refuses a
   * change made from a stale read with STREAM_VERSION_CONFLICT. Two admins racing get distinct
   * versions: the append expects the admin stream as it was read, and is retried on a conflict.
   */
  async set(tenantId: string, input: unknown, metadata: EventMetadata, expectedVersion?: number): Promise<CurrentPolicy> {
    const parsed = parsePolicy(input);
    if (!parsed.ok) throw new InvalidPolicyError(parsed.issues);
    const unenforced = unenforcedTerms(parsed.policy);
    if (unenforced.length > 0) throw new InvalidPolicyError(unenforced);
    for (let attempt = 0; ; attempt++) {
      const [streamVersion, now] = await Promise.all([this.log.streamVersion(tenantId, ADMIN_STREAM_ID), this.current(tenantId)]);
      if (expectedVersion !== undefined && expectedVersion !== now.version) {
        throw new DomainError('STREAM_VERSION_CONFLICT', `the policy is at version ${now.version}, not ${expectedVersion}`, {
          expected: expectedVersion,
          actual: now.version,
        });
      }
      const version = now.version + 1;
      try {
        await this.log.append(tenantId, ADMIN_STREAM_ID, [{ type: POLICY_EVENT, data: { version, policy: parsed.policy }, metadata }], {
          expectedVersion: streamVersion,
        });
        return await this.current(tenantId);
      } catch (e) {
        if (!(isDomainError(e) && e.code === 'STREAM_VERSION_CONFLICT') || attempt >= 4) throw e;
      }
    }
  }
}
