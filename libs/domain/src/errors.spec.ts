import { DomainError, retryAfterMsIn, retryAfterMsOf, retryAfterSecondsOf } from './errors';

// Every protocol's refusal of a used-up limit names the same wait: one reading of it.
describe("a refusal's wait", () => {
  it("is the error's retryAfterMs, whole milliseconds and at least 1, and whole seconds for Retry-After", () => {
    const limited = (ms: unknown) => new DomainError('RATE_LIMITED', 'used up', { retryAfterMs: ms });
    expect([retryAfterMsOf(limited(1500)), retryAfterSecondsOf(limited(1500))]).toEqual([1500, 2]);
    expect([retryAfterMsOf(limited(0.2)), retryAfterSecondsOf(limited(0.2))]).toEqual([1, 1]);
    expect([retryAfterMsOf(limited(86_399_000.4)), retryAfterSecondsOf(limited(86_399_000.4))]).toEqual([86_399_001, 86_400]);
  });

  it('is none for an error without one, a wait that is not a positive number, or anything but a domain error', () => {
    expect(retryAfterMsOf(new DomainError('SESSION_BUSY', 'busy'))).toBeUndefined();
    for (const bad of [0, -5, '1000', null, Number.NaN]) expect(retryAfterMsOf(new DomainError('RATE_LIMITED', 'x', { retryAfterMs: bad }))).toBeUndefined();
    expect(retryAfterMsOf(Object.assign(new Error('x'), { details: { retryAfterMs: 1000 } }))).toBeUndefined();
    expect(retryAfterSecondsOf(undefined)).toBeUndefined();
  });

  it('reads the same from details carried apart from the error', () => {
    expect(retryAfterMsIn({ retryAfterMs: 999.1 })).toBe(1000);
    expect(retryAfterMsIn(undefined)).toBeUndefined();
  });
});
