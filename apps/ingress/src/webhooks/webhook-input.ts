import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { z } from 'zod';
import { DomainError } from '@hub/domain';
import { AddressGuard, WEBHOOK_EVENT_TYPES, WILDCARD } from '@hub/webhooks';

const EventList = z
  .array(z.enum([...WEBHOOK_EVENT_TYPES, WILDCARD]))
  .min(1)
  .max(20)
  .refine((l) => new Set(l).size === l.length, { message: 'each event type once' });
const Url = z.string().trim().min(1).max(2000);

export const NewEndpoint = z.strictObject({ url: Url, events: EventList, description: z.string().trim().max(500).optional() });
export const EndpointChange = z
  .strictObject({
    url: Url.optional(),
    events: EventList.optional(),
    description: z.string().trim().max(500).nullable().optional(),
    enabled: z.boolean().optional(),
  })
  .refine((c) => Object.keys(c).length > 0, { message: 'name at least one of url, events, description, enabled' });
export const Rotation = z.strictObject({
  overlapSeconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .optional(),
});
export const Redelivery = z.union([z.strictObject({ messageId: z.string().min(1).max(100) }), z.strictObject({ since: z.iso.datetime({ offset: true }) })]);
export const LinkSettings = z.strictObject({ approvalLinks: z.boolean() });
export const Decision = z.strictObject({ decision: z.enum(['approved', 'denied']), reason: z.string().max(2000).optional() });

const EXPECTED: Record<string, string> = {
  new: `{"url": http(s) URL, "events": [${[...WEBHOOK_EVENT_TYPES, WILDCARD].map((t) => `"${t}"`).join(', ')}], "description"?: string}`,
  change: '{"url"?, "events"?, "description"?, "enabled"?: boolean}, at least one',
  rotate: '{"overlapSeconds"?: 0-2592000} (or an empty body)',
  redeliver: '{"messageId": string} or {"since": ISO time}',
  settings: '{"approvalLinks": boolean}',
  decision: '{"decision": "approved"|"denied", "reason"?: string}',
};

/** Parses `body` or throws INVALID_COMMAND naming what was expected and the first problem. */
export function parse<T>(schema: z.ZodType<T>, body: unknown, what: keyof typeof EXPECTED): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new DomainError('INVALID_COMMAND', `body must be ${EXPECTED[what]}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(), {
    field: issue?.path.join('.'),
  });
}

/**
 * Refuses a URL the deliveries could never reach: not http(s), or a host that is (or resolves
 * to) an address the SSRF guard refuses. Every attempt checks again (DNS may change).
 */
export async function checkUrl(raw: string, guard: AddressGuard): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DomainError('INVALID_COMMAND', `url: not a URL: ${raw.slice(0, 200)}`, { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DomainError('INVALID_COMMAND', 'url: only http and https', { field: 'url' });
  if (url.username || url.password) throw new DomainError('INVALID_COMMAND', 'url: no credentials in the URL (verify the signature instead)', { field: 'url' });
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [host]
    : await lookup(host, { all: true }).then(
        (r) => r.map((a) => a.address),
        () => null,
      );
  if (addresses === null) throw new DomainError('INVALID_COMMAND', `url: ${host} does not resolve`, { field: 'url' });
  for (const a of addresses) {
    const v = guard.check(a);
    if (!v.ok) throw new DomainError('INVALID_COMMAND', `url: ${v.reason}`, { field: 'url' });
  }
  return url.toString();
}
