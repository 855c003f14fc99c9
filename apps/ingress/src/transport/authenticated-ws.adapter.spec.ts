import { keyFromProtocols, selectProtocol } from './authenticated-ws.adapter';

// Browsers cannot send Authorization on a WebSocket upgrade: the console sends its key as a
// subprotocol. The key must be read only under the marker and never be echoed back.

describe('the API key as a WebSocket subprotocol', () => {
  it('reads the key offered with the hub.bearer marker', () => {
    expect(keyFromProtocols('hub.bearer, hub.key.hub_abc_def')).toBe('hub_abc_def');
    expect(keyFromProtocols(['hub.key.k1', 'hub.bearer'])).toBe('k1');
  });

  it('reads nothing without the marker, with two keys or an empty one', () => {
    expect(keyFromProtocols('hub.key.k1')).toBeUndefined();
    expect(keyFromProtocols('hub.bearer')).toBeUndefined();
    expect(keyFromProtocols('hub.bearer, hub.key.k1, hub.key.k2')).toBeUndefined();
    expect(keyFromProtocols('hub.bearer, hub.key.')).toBeUndefined();
    expect(keyFromProtocols(undefined)).toBeUndefined();
  });

  it('answers with the marker, never with an entry carrying a key', () => {
    expect(selectProtocol(new Set(['hub.key.secret', 'hub.bearer']))).toBe('hub.bearer');
    expect(selectProtocol(new Set(['hub.key.secret']))).toBe(false);
    expect(selectProtocol(new Set(['hub.key.secret', 'acp']))).toBe('acp');
    expect(selectProtocol(new Set())).toBe(false);
  });
});
