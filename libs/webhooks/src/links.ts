import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * What an approval link says: whose approval (tenant, session, approval), which delivery carried
 * it (endpoint, message), and until when it may be used (the approval's deadline). Signed with
 * the tenant's link key (HMAC-SHA256); nothing in it is secret, everything in it is checked.
 */
export const LinkClaims = z.object({
  v: z.literal(1),
  t: z.uuid(),
  s: z.string().min(1),
  a: z.string().min(1),
  e: z.string().min(1),
  m: z.string().min(1),
  /** Expiry, ms since the epoch. */
  x: z.number().int().positive(),
});
export type LinkClaims = z.infer<typeof LinkClaims>;

/** A new tenant link key (32 random bytes, base64url). */
export function newLinkKey(): string {
  return randomBytes(32).toString('base64url');
}

function mac(key: string, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}

/** The link's token: `base64url(claims JSON).base64url(HMAC)`. */
export function signLink(claims: LinkClaims, key: string): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/** Why a link is refused. */
export type LinkRefusal = 'malformed' | 'forged' | 'expired';

/** The claims a token states, unverified (to find the tenant whose key checks it), or null. */
export function claimsOf(token: string): LinkClaims | null {
  const [payload, sig, extra] = token.split('.');
  if (!payload || !sig || extra !== undefined) return null;
  try {
    const parsed = LinkClaims.safeParse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // not JSON: a malformed token, said by the null
  }
}

/** Checks the token's signature with the tenant's key and its expiry at `now`. */
export function verifyLink(token: string, key: string, now: number): { ok: true; claims: LinkClaims } | { ok: false; why: LinkRefusal } {
  const claims = claimsOf(token);
  if (claims === null) return { ok: false, why: 'malformed' };
  const [payload, sig] = token.split('.');
  const expected = mac(key, payload);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, why: 'forged' };
  if (claims.x <= now) return { ok: false, why: 'expired' };
  return { ok: true, claims };
}
