import { WebhooksUsageError, webhookRequestOf } from './webhooks';

describe('hub webhooks: the request each command makes', () => {
  it('maps commands to the HTTP API', () => {
    expect(webhookRequestOf(['create', '--url', 'https://x.example/h', '--events', 'approval.requested, turn.completed'])).toEqual({
      method: 'POST',
      path: '/v1/webhooks',
      body: { url: 'https://x.example/h', events: ['approval.requested', 'turn.completed'], description: undefined },
    });
    expect(webhookRequestOf(['list'])).toEqual({ method: 'GET', path: '/v1/webhooks' });
    expect(webhookRequestOf(['update', 'E1', '--disable'])).toEqual({
      method: 'PATCH',
      path: '/v1/webhooks/E1',
      body: { url: undefined, events: undefined, description: undefined, enabled: false },
    });
    expect(webhookRequestOf(['rotate', 'E1', '--overlap-seconds', '60'])).toEqual({
      method: 'POST',
      path: '/v1/webhooks/E1/rotate',
      body: { overlapSeconds: 60 },
    });
    expect(webhookRequestOf(['attempts', 'E1', '--limit', '5'])).toEqual({ method: 'GET', path: '/v1/webhooks/E1/attempts?limit=5' });
    expect(webhookRequestOf(['redeliver', 'E1', '--since', '2026-11-26T00:00:00Z'])).toEqual({
      method: 'POST',
      path: '/v1/webhooks/E1/redeliver',
      body: { since: '2026-11-26T00:00:00Z' },
    });
    expect(webhookRequestOf(['links', 'off'])).toEqual({ method: 'PUT', path: '/v1/webhook-settings', body: { approvalLinks: false } });
  });

  it('says what is missing', () => {
    expect(() => webhookRequestOf(['create', '--url', 'https://x.example'])).toThrow(WebhooksUsageError);
    expect(() => webhookRequestOf(['test'])).toThrow(/needs an endpoint ID/);
    expect(() => webhookRequestOf(['redeliver', 'E1'])).toThrow(/--message MSG_ID or --since/);
    expect(() => webhookRequestOf(['links', 'maybe'])).toThrow(/on or off/);
    expect(() => webhookRequestOf(['fly'])).toThrow(/unknown webhooks command: fly/);
  });
});
