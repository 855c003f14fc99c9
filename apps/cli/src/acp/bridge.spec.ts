import { acpSocketUrl } from './bridge';

describe('acpSocketUrl', () => {
  it('maps the hub URL to its ACP WebSocket', () => {
    expect(acpSocketUrl('http://127.0.0.1:8080')).toBe('ws://127.0.0.1:8080/v1/acp');
    expect(acpSocketUrl('https://hub.example.com/base/')).toBe('wss://hub.example.com/base/v1/acp');
  });
});
