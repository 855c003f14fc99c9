import { DomainError } from '@hub/domain';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** Tenant ids come from the authenticated principal; anything else is a caller bug. */
export function checkIds(tenantId: string, streamId?: string): void {
  if (!isUuid(tenantId)) throw new DomainError('INVALID_COMMAND', 'tenantId must be a UUID', { tenantId });
  if (streamId !== undefined && (typeof streamId !== 'string' || streamId.length === 0 || streamId.length > 512)) {
    throw new DomainError('INVALID_COMMAND', 'streamId must be 1 to 512 characters', { streamId });
  }
}
