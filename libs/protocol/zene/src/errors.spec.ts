import { DOMAIN_ERROR_CODES } from '@hub/domain';
import { ZENE_CODE_OF_DOMAIN, ZENE_ERROR_CODES, zeneCodeOf } from './errors';

describe('error codes', () => {
  it('every domain code has a zene code from the set', () => {
    for (const code of DOMAIN_ERROR_CODES) expect(ZENE_ERROR_CODES).toContain(ZENE_CODE_OF_DOMAIN[code]);
  });

  it.each([
    ['PROVIDER_AUTH', 'PROVIDER_AUTH'],
    ['PROVIDER_RATE_LIMIT', 'PROVIDER_RATE_LIMIT'],
    ['PROVIDER_DOWN', 'PROVIDER_DOWN'],
    ['TIMEOUT', 'TIMEOUT'],
    ['INTERNAL', 'INTERNAL'],
    ['SESSION_BUSY', 'BUSY'],
    ['INVALID_COMMAND', 'INVALID_REQUEST'],
    ['UNAUTHENTICATED', 'PROVIDER_AUTH'],
    ['MAX_STEPS_EXHAUSTED', 'INTERNAL'],
  ])('%s → %s', (hub, zene) => expect(zeneCodeOf(hub)).toBe(zene));
});
