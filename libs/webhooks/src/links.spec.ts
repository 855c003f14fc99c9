import { randomUUID } from 'node:crypto';
import { claimsOf, newLinkKey, signLink, verifyLink, type LinkClaims } from './links';

const claims = (x: number): LinkClaims => ({ v: 1, t: randomUUID(), s: 'sess', a: 'appr', e: randomUUID(), m: 'msg_1', x });

describe('approval link tokens', () => {
  const key = newLinkKey();

  it('verifies with the key it was signed with, until it expires', () => {
    const c = claims(Date.now() + 60_000);
    const token = signLink(c, key);
    expect(verifyLink(token, key, Date.now())).toEqual({ ok: true, claims: c });
    expect(verifyLink(token, key, c.x)).toEqual({ ok: false, why: 'expired' });
  });

  it('refuses a token signed with another key, or whose claims were changed', () => {
    const c = claims(Date.now() + 60_000);
    const token = signLink(c, key);
    expect(verifyLink(token, newLinkKey(), Date.now())).toEqual({ ok: false, why: 'forged' });
    const [, sig] = token.split('.');
    const changed = `${Buffer.from(JSON.stringify({ ...c, a: 'another' })).toString('base64url')}.${sig}`;
    expect(verifyLink(changed, key, Date.now())).toEqual({ ok: false, why: 'forged' });
    const longer = `${Buffer.from(JSON.stringify({ ...c, x: c.x + 86_400_000 })).toString('base64url')}.${sig}`;
    expect(verifyLink(longer, key, Date.now())).toEqual({ ok: false, why: 'forged' });
  });

  it('refuses what is not a token', () => {
    for (const t of ['', 'abc', 'a.b.c', `${Buffer.from('{"v":2}').toString('base64url')}.x`, 'not-base64!.x']) {
      expect(claimsOf(t)).toBeNull();
      expect(verifyLink(t, key, Date.now())).toEqual({ ok: false, why: 'malformed' });
    }
  });
});
