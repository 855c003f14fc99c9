import type { AttachmentRef, EnvironmentState } from './schema';

export type PrivacyTier = 'public' | 'restricted' | 'secret';

/**
 * The tier of a shell's `environment_state` (spec §8). Unclassified state is treated as
 * `restricted`; a tier this hub does not know is treated as `secret` (fail closed).
 */
export function privacyTierOf(state: EnvironmentState): PrivacyTier {
  const tier = state.privacy_tier;
  if (tier === undefined) return 'restricted';
  return tier === 'public' || tier === 'restricted' || tier === 'secret' ? tier : 'secret';
}

/**
 * The environment state as it may enter a turn's context: `secret` state is withheld entirely
 * (it is never stored, logged or sent to a model provider); other tiers are kept as sent.
 */
export function environmentForContext(state: EnvironmentState): Record<string, unknown> {
  const tier = privacyTierOf(state);
  return tier === 'secret' ? { privacy_tier: 'secret', withheld: true } : { ...state };
}

/**
 * What a log line may say about the environment state: the tier, and for non-secret state the
 * key names only — never values (restricted state is minimised; secret state is not mentioned).
 */
export function environmentForLog(state: EnvironmentState): Record<string, unknown> {
  const tier = privacyTierOf(state);
  return tier === 'secret' ? { privacy_tier: tier } : { privacy_tier: tier, keys: Object.keys(state).filter((k) => k !== 'privacy_tier') };
}

/** A string longer than this inside an attachment is content, not a reference. */
export const MAX_ATTACHMENT_STRING_CHARS = 2048;
export const MAX_ATTACHMENTS = 32;
/** Keys that carry inline content rather than a reference. */
const INLINE_KEYS = new Set(['data', 'content', 'base64', 'bytes', 'blob', 'body', 'inline', 'content_base64']);

/**
 * Why an attachment is not a reference (spec §9.1: no inline blobs), or null when it is one.
 * The reason names the attachment and key, never the content.
 */
export function inlineBlobIn(attachment: AttachmentRef, index: number): string | null {
  for (const [key, value] of Object.entries(attachment)) {
    const where = `context.attachments[${index}].${key}`;
    if (INLINE_KEYS.has(key.toLowerCase()) && value !== undefined && value !== null)
      return `${where}: inline content is not accepted; send a ref_id, uri or asset_id`;
    if (typeof value === 'string' && value.trim().toLowerCase().startsWith('data:')) return `${where}: data: URIs are inline content; send a reference`;
    if (longestString(value) > MAX_ATTACHMENT_STRING_CHARS)
      return `${where}: holds more than ${MAX_ATTACHMENT_STRING_CHARS} characters; attachments are references only`;
  }
  return null;
}

function longestString(value: unknown, depth = 0): number {
  if (typeof value === 'string') return value.length;
  if (depth > 8 || typeof value !== 'object' || value === null) return 0;
  return Math.max(0, ...Object.values(value).map((v: unknown) => longestString(v, depth + 1)));
}
