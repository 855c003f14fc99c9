import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { asTenant } from './scope';

/** How a value kept by {@link SecretStore} is written wherever the value would have been. */
export const SECRET_REF_PREFIX = 'hub-secret:';
const REF = /^hub-secret:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** A reference the tenant does not own (or that does not exist), named by its variable. */
export class UnknownSecretError extends Error {
  override readonly name = 'UnknownSecretError';
  constructor(readonly variable: string) {
    super(`${variable}: no such secret of this tenant`);
  }
}

/**
 * Values of the environment variables a tenant gives a child process (MCP servers, wrapped
 * harnesses). The append-only log must never hold them (an export, a replay, a `GET` of the
 * configuration would hand them out, and erasure could not remove them), so ingress `seal`s an
 * environment before it is recorded (each value becomes `hub-secret:<id>`) and the process that
 * starts the child `open`s it again, for the same tenant only.
 */
export class SecretStore {
  constructor(private readonly pool: Pool) {}

  /** `env` with every plain value stored and replaced by its reference; references are checked. */
  async seal(tenantId: string, env: Readonly<Record<string, string>>): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    const fresh: { name: string; id: string; value: string }[] = [];
    for (const [name, value] of Object.entries(env)) {
      if (REF.test(value)) out[name] = value;
      else {
        const id = randomUUID();
        fresh.push({ name, id, value });
        out[name] = `${SECRET_REF_PREFIX}${id}`;
      }
    }
    await this.open(tenantId, Object.fromEntries(Object.entries(out).filter(([n]) => !fresh.some((f) => f.name === n))));
    if (fresh.length > 0) {
      await asTenant(this.pool, tenantId).query('INSERT INTO tenant_secrets (id, tenant_id, value) SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[])', [
        fresh.map((f) => f.id),
        fresh.map(() => tenantId),
        fresh.map((f) => f.value),
      ]);
    }
    return out;
  }

  /**
   * `env` with every reference replaced by its value, in one query. A reference that is not this
   * tenant's throws {@link UnknownSecretError}; a plain value (recorded before values were kept
   * apart) is passed as it is.
   */
  async open(tenantId: string, env: Readonly<Record<string, string>>): Promise<Record<string, string>> {
    const refs = Object.entries(env).flatMap(([name, value]) => {
      const m = REF.exec(value);
      return m ? [{ name, id: m[1] }] : [];
    });
    if (refs.length === 0) return { ...env };
    const { rows } = await asTenant(this.pool, tenantId).query<{ id: string; value: string }>(
      'SELECT id, value FROM tenant_secrets WHERE tenant_id = $1 AND id = ANY($2::uuid[])',
      [tenantId, refs.map((r) => r.id)],
    );
    const values = new Map(rows.map((r) => [r.id, r.value]));
    const out = { ...env };
    for (const r of refs) {
      const v = values.get(r.id);
      if (v === undefined) throw new UnknownSecretError(r.name);
      out[r.name] = v;
    }
    return out;
  }
}
