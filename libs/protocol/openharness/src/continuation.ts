import { z } from 'zod';

/**
 * What a continuation token of ours points at: a turn of a session, optionally one approval of
 * it, and how many characters of the turn's answer the shell has already been sent (so that a
 * continuation returns only the rest).
 *
 * The token is opaque to shells but not signed: it is `ohc1.` + base64url(JSON). It cannot
 * reach another tenant's data because every read and command it leads to is scoped to the
 * tenant of the API key that presents it, and within a tenant ingress checks the key's access to
 * the session it names (a `client` key reads only sessions it opened). Forged or corrupt tokens
 * fail to parse (`invalid_request`) or point at a turn the key cannot see (`not_found`).
 */
export interface ContinuationRef {
  sessionId: string;
  turnId: string;
  approvalId?: string;
  delivered: number;
}

const TOKEN_PREFIX = 'ohc1.';
/** Bounded so a hostile token costs nothing to reject. */
const MAX_TOKEN_CHARS = 2048;

const Payload = z.object({
  s: z.string().min(1).max(256),
  t: z.string().min(1).max(512),
  a: z.string().min(1).max(512).optional(),
  o: z.number().int().nonnegative(),
});

/** Whether a `continuation_token` was issued by this hub (as opposed to another engine's). */
export function isHubToken(token: string): boolean {
  return token.startsWith(TOKEN_PREFIX);
}

/** Mints the opaque token of a continuation. */
export function continuationToken(ref: ContinuationRef): string {
  const payload = { s: ref.sessionId, t: ref.turnId, ...(ref.approvalId ? { a: ref.approvalId } : {}), o: ref.delivered };
  return TOKEN_PREFIX + base64UrlEncode(JSON.stringify(payload));
}

/** Reads a token minted by {@link continuationToken}; null when it is not a valid one. */
export function parseContinuationToken(token: string): ContinuationRef | null {
  if (!isHubToken(token) || token.length > MAX_TOKEN_CHARS) return null;
  const json = base64UrlDecode(token.slice(TOKEN_PREFIX.length));
  if (json === null) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return null; // not JSON inside: a corrupt token, reported by the caller as invalid_request
  }
  const p = Payload.safeParse(raw);
  if (!p.success) return null;
  return { sessionId: p.data.s, turnId: p.data.t, ...(p.data.a ? { approvalId: p.data.a } : {}), delivered: p.data.o };
}

function base64UrlEncode(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function base64UrlDecode(encoded: string): string | null {
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) return null;
  const b64 = encoded.replace(/-/g, '+').replace(/_/g, '/');
  try {
    const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return null; // bad base64 or bad UTF-8: a corrupt token
  }
}
