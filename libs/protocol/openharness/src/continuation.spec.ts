import { continuationToken, isHubToken, parseContinuationToken } from './continuation';

describe('continuation tokens', () => {
  it('round-trip, with and without an approval', () => {
    const a = { sessionId: 'sess:conv', turnId: 'oh-req_1', approvalId: 'call_x:approval', delivered: 42 };
    const b = { sessionId: 's', turnId: 'oh-é-ü', delivered: 0 };
    expect(parseContinuationToken(continuationToken(a))).toEqual(a);
    expect(parseContinuationToken(continuationToken(b))).toEqual(b);
    expect(continuationToken(a)).toMatch(/^ohc1\.[A-Za-z0-9_-]+$/);
  });

  it('tells ours from other engines’ and rejects corrupt ones', () => {
    expect(isHubToken('ctok_aq9')).toBe(false);
    expect(parseContinuationToken('ctok_aq9')).toBeNull();
    expect(parseContinuationToken('ohc1.')).toBeNull();
    expect(parseContinuationToken('ohc1.!!!')).toBeNull();
    expect(parseContinuationToken(`ohc1.${btoa('{"s":"x"}')}`)).toBeNull();
    expect(parseContinuationToken(`ohc1.${'A'.repeat(5000)}`)).toBeNull();
    const valid = continuationToken({ sessionId: 's', turnId: 't', delivered: 1 });
    expect(parseContinuationToken(valid.slice(0, -3))).toBeNull();
  });
});
