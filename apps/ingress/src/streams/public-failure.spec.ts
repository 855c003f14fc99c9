import { foldHarness, publicFailureMessage, type HubEvent, type Recorded } from '@hub/domain';
import { encode as encodeAcp, initialAcpView } from '@hub/protocol-acp';
import { encodeHarnessEventList } from '@hub/protocol-openenv';
import { resultOfTurn } from '@hub/protocol-zene';

// Issue 11 defect 9 / issue 13 "never leak internals": a failed turn's recorded message may be a
// driver's or a provider's text naming our addresses. No protocol shows it to a client.

const LEAK = 'connect ECONNREFUSED 127.0.0.1:5432';

const turn = (code: string, message: string): Recorded<HubEvent>[] =>
  (
    [
      { type: 'TurnRequested', data: { turnId: 't1', userMessageId: 'u1', prompt: 'hi', context: {}, busyPolicy: 'enqueue' } },
      { type: 'TurnStarted', data: { turnId: 't1' } },
      { type: 'TurnFailed', data: { turnId: 't1', code, message, retryable: false } },
    ] as HubEvent[]
  ).map(
    (e, i) =>
      ({
        ...e,
        eventId: `e${i}`,
        tenantId: 't',
        streamId: 'session-s',
        streamPosition: i + 1,
        globalPosition: i + 1,
        createdAt: '2026-01-01T00:00:00.000Z',
        metadata: { correlationId: 'c' },
      }) as Recorded<HubEvent>,
  );

function everyWire(events: Recorded<HubEvent>[]): string {
  let acpView = initialAcpView();
  const acp = events.flatMap((e) => {
    const r = encodeAcp(e, acpView, 's');
    acpView = r.view;
    return r.notifications;
  });
  return JSON.stringify({ transport: foldHarness(events).state, acp, openenv: encodeHarnessEventList(events), zene: resultOfTurn(events, 't1') });
}

describe('a failed turn as every protocol shows it', () => {
  it.each([
    ['INTERNAL', 'Prisma: invalid invocation'],
    ['PROVIDER_DOWN', LEAK],
    ['TOOL_FAILED', 'fetch failed: getaddrinfo ENOTFOUND redis.internal'],
  ])('%s with an internal message names no internals on any wire', (code, message) => {
    const wire = everyWire(turn(code, message));
    expect(wire).not.toContain(message);
    expect(wire).toContain(publicFailureMessage(code, message));
  });

  it('a message of ours reaches every wire as it is', () => {
    const wire = everyWire(turn('MAX_STEPS', 'the turn used its 8 model calls'));
    expect(wire.split('the turn used its 8 model calls').length - 1).toBeGreaterThanOrEqual(3);
  });
});
