import type { CapabilityDenial } from './schema';

/** The default and the cap of the wait budget (`extensions["dev.harnesshub"].wait_ms`). */
export const DEFAULT_WAIT_MS = 25_000;
export const MAX_WAIT_MS = 60_000;

/** Our own capability key: the continuation profile described in docs/protocols/openharness.md. */
export const HUB_CONTINUATION_CAPABILITY = 'dev.harnesshub.continuation';

/**
 * What this hub honours, as every reply advertises it (spec §5.3). Values say how: attachments
 * are references only, and the continuation profile names its extension and wait budget.
 */
export const SUPPORTED_CAPABILITIES: Readonly<Record<string, unknown>> = {
  'openharness.ui.approval': true,
  'openharness.attachments.upload': true,
  [HUB_CONTINUATION_CAPABILITY]: { extension: 'dev.harnesshub', wait_ms_default: DEFAULT_WAIT_MS, wait_ms_max: MAX_WAIT_MS },
};

/** The capability codes of `capability_denials`. */
export type DenialCode = 'not_supported' | 'unknown_capability';

/** Capabilities the spec names that this hub deliberately does not honour, and why. */
const DENIED: Readonly<Record<string, { code: DenialCode; message: string }>> = {
  'openharness.streaming': {
    code: 'not_supported',
    message: 'This endpoint answers with one JSON reply; watch a session live on the Harness transport WebSocket (/v1/transport?session=ID).',
  },
  'openharness.actions.parallel': { code: 'not_supported', message: 'Directives are always sequential.' },
  'openharness.ui.rich_cards': { code: 'not_supported', message: 'Answers are plain-text render_message directives.' },
};

export interface Negotiated {
  supported_capabilities: Record<string, unknown>;
  capability_denials: CapabilityDenial[];
}

/** A capability counts as asked for unless its value says no (`false` or `null`). */
const asked = (value: unknown): boolean => value !== false && value !== null && value !== undefined;

/**
 * The reply's `supported_capabilities` and `capability_denials` for what the shell asked:
 * every asked key this hub does not honour is denied with a code, never silently dropped.
 */
export function negotiateCapabilities(requested: Readonly<Record<string, unknown>> | undefined): Negotiated {
  const denials: CapabilityDenial[] = [];
  for (const [key, value] of Object.entries(requested ?? {})) {
    if (!asked(value) || key in SUPPORTED_CAPABILITIES) continue;
    const known = DENIED[key];
    denials.push(
      known
        ? { capability: key, code: known.code, message: known.message }
        : { capability: key, code: 'unknown_capability', message: 'This hub does not know this capability.' },
    );
  }
  return { supported_capabilities: { ...SUPPORTED_CAPABILITIES }, capability_denials: denials };
}
