import { correlationIdFrom, currentCorrelationId, runWithCorrelation } from './correlation';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('correlationIdFrom', () => {
  it('keeps a valid caller id, trimmed', () => {
    expect(correlationIdFrom('req-123')).toBe('req-123');
    expect(correlationIdFrom('  abc:DEF/1  ')).toBe('abc:DEF/1');
    expect(correlationIdFrom('x'.repeat(128))).toBe('x'.repeat(128));
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['too long', 'x'.repeat(129)],
    ['a control character', 'abc\ndef'],
    ['an inner space', 'abc def'],
    ['non-ASCII', 'café'],
  ])('generates a UUID when the header is %s', (_, header) => {
    const id = correlationIdFrom(header);
    expect(id).toMatch(UUID);
    expect(correlationIdFrom(header)).not.toBe(id);
  });
});

describe('runWithCorrelation', () => {
  it('scopes the id to the callback and what it awaits', async () => {
    expect(currentCorrelationId()).toBeUndefined();
    const seen = await runWithCorrelation('c-1', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return currentCorrelationId();
    });
    expect(seen).toBe('c-1');
    expect(currentCorrelationId()).toBeUndefined();
  });

  it('lets an inner scope override an outer one', () => {
    const seen = runWithCorrelation('outer', () => [currentCorrelationId(), runWithCorrelation('inner', currentCorrelationId), currentCorrelationId()]);
    expect(seen).toEqual(['outer', 'inner', 'outer']);
  });
});
