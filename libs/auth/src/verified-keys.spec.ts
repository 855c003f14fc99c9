import type { Principal } from './principal';
import { VerifiedKeys } from './verified-keys';

const principal: Principal = { tenantId: 't', keyId: 'k1', keyPrefix: 'hub_aaaaaaaaaaaa', keyName: 'n', role: 'operator' };

function setup(over: { expiresAt?: Date | null; listening?: boolean } = {}) {
  let now = 1_000_000;
  let listening = over.listening ?? true;
  const calls = { verify: 0, live: 0, used: 0 };
  let answer: { principal: Principal; expiresAt: Date | null } | null = { principal, expiresAt: over.expiresAt ?? null };
  let pause: Promise<void> | null = null;
  const keys = {
    verifyWithExpiry: async () => (calls.verify++, await pause, answer),
    recordUse: () => void calls.used++,
  };
  const liveness = { isLive: async () => (calls.live++, answer !== null) };
  const cache = new VerifiedKeys(keys, liveness, { listening: () => listening, maxAgeMs: 60_000, now: () => now });
  return {
    cache,
    calls,
    tick: (ms: number) => void (now += ms),
    revoke: () => void (answer = null),
    setListening: (v: boolean) => void (listening = v),
    hold: () => {
      let release: () => void = () => undefined;
      pause = new Promise((r) => (release = r));
      return () => (release(), (pause = null));
    },
  };
}

describe('VerifiedKeys', () => {
  it('reads a key once, then answers from what it kept, recording each use', async () => {
    const h = setup();
    expect(await h.cache.verify('key')).toEqual(principal);
    expect(await h.cache.verify('key')).toEqual(principal);
    expect(await h.cache.isLive(principal)).toBe(true);
    expect(h.calls).toEqual({ verify: 1, live: 0, used: 1 }); // the read records its own use
  });

  it('reads again after a change is heard: a revoked key stops working at once', async () => {
    const h = setup();
    await h.cache.verify('key');
    h.revoke();
    h.cache.forgetAll();
    expect(await h.cache.verify('key')).toBeNull();
    expect(await h.cache.isLive(principal)).toBe(false);
  });

  it('does not keep an answer read while a change was heard', async () => {
    const h = setup();
    const release = h.hold();
    const reading = h.cache.verify('key');
    h.cache.forgetAll(); // the revocation's NOTIFY arrives while the key is being read
    release();
    expect(await reading).toEqual(principal);
    h.revoke();
    expect(await h.cache.verify('key')).toBeNull();
  });

  it('trusts nothing while it cannot hear changes', async () => {
    const h = setup();
    await h.cache.verify('key');
    h.setListening(false);
    h.revoke();
    expect(await h.cache.verify('key')).toBeNull();
    expect(await h.cache.isLive(principal)).toBe(false);
  });

  it('honours the expiry and the longest age by the clock', async () => {
    const h = setup({ expiresAt: new Date(1_000_000 + 5_000) });
    await h.cache.verify('key');
    h.tick(4_000);
    await h.cache.verify('key');
    expect(h.calls.verify).toBe(1);
    h.tick(2_000);
    h.revoke();
    expect(await h.cache.verify('key')).toBeNull();
    const g = setup();
    await g.cache.verify('key');
    g.tick(61_000);
    await g.cache.verify('key');
    expect(g.calls.verify).toBe(2);
  });

  it('keeps nothing for a key that did not verify', async () => {
    const h = setup();
    h.revoke();
    await h.cache.verify('bad');
    await h.cache.verify('bad');
    expect(h.calls.verify).toBe(2);
  });
});
