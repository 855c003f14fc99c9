import { AcpRpcError, RPC } from '@hub/protocol-acp';
import { loadReplaySpeed } from './acp-replay';

describe('loadReplaySpeed (session/load _meta.replay)', () => {
  it('is undefined for a plain load', () => {
    for (const meta of [undefined, null, {}, { replay: null }, { replay: false }, { other: 1 }]) expect(loadReplaySpeed(meta)).toBeUndefined();
  });

  it('defaults to 1 for true and {}', () => {
    expect(loadReplaySpeed({ replay: true })).toBe(1);
    expect(loadReplaySpeed({ replay: {} })).toBe(1);
  });

  it('takes a speed in (0, 1000]', () => {
    for (const speed of [0.01, 0.5, 1, 100, 1000]) expect(loadReplaySpeed({ replay: { speed } })).toBe(speed);
  });

  it('refuses anything else with invalid params', () => {
    const bad = [
      { speed: 0 },
      { speed: -1 },
      { speed: 1000.5 },
      { speed: Infinity },
      { speed: NaN },
      { speed: '10' },
      { speed: null },
      'yes',
      10,
      [],
      ['speed'],
    ];
    for (const replay of bad) {
      let thrown: unknown;
      try {
        loadReplaySpeed({ replay });
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(AcpRpcError);
      expect((thrown as AcpRpcError).code).toBe(RPC.INVALID_PARAMS);
    }
  });
});
