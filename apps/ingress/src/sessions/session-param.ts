import { DomainError, SESSION_ID_PATTERN } from '@hub/domain';

/** A session id from a route parameter, or INVALID_COMMAND. */
export function sessionParam(id: string): string {
  if (!SESSION_ID_PATTERN.test(id)) throw new DomainError('INVALID_COMMAND', 'session id: 1-128 of [A-Za-z0-9._:@-]');
  return id;
}
