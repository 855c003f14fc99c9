import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A signing secret of an endpoint, as stored: `expiresAt` null for the current one. */
export interface SigningSecret {
  secret: string;
  expiresAt: string | null;
}

/** A new `whsec_` secret (24 random bytes, base64), as Standard Webhooks libraries read it. */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The secrets that sign at `now`: the current one and those still in a rotation's overlap. */
export function liveSecrets(secrets: readonly SigningSecret[], now: Date): SigningSecret[] {
  return secrets.filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > now.getTime());
}

/** The three Standard Webhooks headers of one attempt. */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs `body` for one attempt: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` with each secret
 * (current first), space-separated, so a receiver holding either secret of a rotation verifies.
 */
export function signedHeaders(id: string, at: Date, body: string, secrets: readonly string[]): SignedHeaders {
  if (secrets.length === 0) throw new Error('no signing secret');
  // Whole seconds: the timestamp header is in seconds and the signature covers that value.
  const seconds = new Date(Math.floor(at.getTime() / 1000) * 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(seconds.getTime() / 1000),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(id, seconds, body)).join(' '),
  };
}
