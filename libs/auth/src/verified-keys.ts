import { createHash } from 'node:crypto';
import type { ApiKeyService } from './api-keys';
import type { KeyLiveness } from './key-liveness';
import type { Principal } from './principal';

export interface VerifiedKeysOptions {
  /**
   * Whether a change to a key would reach this process now (its `LISTEN hub_keys` is in place).
   * While it is not, nothing kept is trusted: every check reads the database, as without a cache.
   */
  listening: () => boolean;
  /** The longest an answer is kept even when no change was heard (belt and braces). */
  maxAgeMs: number;
  /** How many keys are kept (least recently used go first). */
  maxKeys?: number;
  now?: () => number;
}

interface Kept {
  principal: Principal;
  expiresAt: number;
  at: number;
}

/**
 * The keys this process verified, kept until the database says one changed: every request,
 * socket upgrade and command used to read `api_keys` (two Prisma queries per trivial turn). A
 * change to a key (revoked, new expiry, new role, name or hash) or a deleted key NOTIFYs
 * `hub_keys` when it commits (migrations `…_api_key_changes`, `…_api_key_every_change`), whoever made it, and `forgetAll` drops everything kept; an expiry is
 * checked here against the clock. Only keys that verified are kept: a wrong key reads the
 * database every time, as before. ADR 0027.
 */
export class VerifiedKeys {
  private readonly byHash = new Map<string, Kept>();
  private readonly byId = new Map<string, Kept>();
  private readonly maxKeys: number;
  private readonly now: () => number;
  /** Moves on each `forgetAll`: an answer read before a change was heard is not kept after it. */
  private generation = 0;

  constructor(
    private readonly keys: Pick<ApiKeyService, 'verifyWithExpiry' | 'recordUse'>,
    private readonly liveness: Pick<KeyLiveness, 'isLive'>,
    private readonly opts: VerifiedKeysOptions,
  ) {
    this.maxKeys = opts.maxKeys ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /** The principal of a presented key, or null for an unknown, malformed, revoked or expired one. */
  async verify(presented: string | undefined | null): Promise<Principal | null> {
    if (!presented) return null;
    const hash = createHash('sha256').update(presented).digest('hex');
    const kept = this.fresh(this.byHash.get(hash));
    if (kept) {
      this.keys.recordUse(kept.principal.keyId, new Date(this.now()));
      return kept.principal;
    }
    const listening = this.opts.listening();
    const generation = this.generation;
    const found = await this.keys.verifyWithExpiry(presented, new Date(this.now()));
    if (!found) return null;
    if (listening && generation === this.generation)
      this.keep(hash, { principal: found.principal, expiresAt: found.expiresAt?.getTime() ?? Infinity, at: this.now() });
    return found.principal;
  }

  /** Whether a principal's key still works now (not revoked, not expired); a person's access token, until it expires. */
  async isLive(principal: Principal): Promise<boolean> {
    if (principal.person) return principal.person.expiresAt > this.now();
    if (this.fresh(this.byId.get(principal.keyId))) return true;
    return this.liveness.isLive(principal.keyId);
  }

  /** A key changed somewhere (or changes may have been missed): nothing kept is trusted any more. */
  forgetAll(): void {
    this.generation++;
    this.byHash.clear();
    this.byId.clear();
  }

  private fresh(kept: Kept | undefined): Kept | null {
    if (!kept || !this.opts.listening()) return null;
    const now = this.now();
    return now - kept.at < this.opts.maxAgeMs && now < kept.expiresAt ? kept : null;
  }

  private keep(hash: string, kept: Kept): void {
    this.byHash.delete(hash);
    this.byHash.set(hash, kept);
    this.byId.set(kept.principal.keyId, kept);
    for (const [h, old] of this.byHash) {
      if (this.byHash.size <= this.maxKeys) break;
      this.byHash.delete(h);
      if (this.byId.get(old.principal.keyId) === old) this.byId.delete(old.principal.keyId);
    }
  }
}
