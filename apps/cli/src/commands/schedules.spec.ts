import { durationMs, requestOf } from './schedules';

describe('hub schedules: the request each command makes', () => {
  it('create turns flags into the API body (durations in ms, the run nested)', () => {
    expect(
      requestOf([
        'create',
        '--name',
        'nightly',
        '--every',
        '2s',
        '--prompt',
        'run the evals',
        '--session-pattern',
        'evals-{time}',
        '--overlap',
        'buffer_one',
        '--catch-up',
        '10m',
        '--key',
        'evals',
        '--context',
        '{"model":"m"}',
      ]),
    ).toEqual({
      method: 'POST',
      path: '/v1/schedules',
      body: expect.objectContaining({
        clientKey: 'evals',
        name: 'nightly',
        intervalMs: 2000,
        overlap: 'buffer_one',
        catchUpWindowMs: 600_000,
        run: { prompt: 'run the evals', sessionId: undefined, sessionPattern: 'evals-{time}', context: { model: 'm' } },
      }),
    });
  });

  it('each other command is one route of the schedule', () => {
    expect(requestOf(['pause', 'sch-1', '--note', 'freeze'])).toEqual({ method: 'POST', path: '/v1/schedules/sch-1/pause', body: { note: 'freeze' } });
    expect(requestOf(['resume', 'sch-1'])).toEqual({ method: 'POST', path: '/v1/schedules/sch-1/resume', body: {} });
    expect(requestOf(['trigger', 'sch-1'])).toEqual({ method: 'POST', path: '/v1/schedules/sch-1/trigger' });
    expect(requestOf(['backfill', 'sch-1', '--from', '2026-01-01T00:00:00Z', '--to', '2026-01-02T00:00:00Z'])).toEqual({
      method: 'POST',
      path: '/v1/schedules/sch-1/backfill',
      body: { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' },
    });
    expect(requestOf(['preview', 'sch-1', '--count', '3'])).toEqual({ method: 'GET', path: '/v1/schedules/sch-1/preview?count=3' });
    expect(requestOf(['delete', 'a/b'])).toEqual({ method: 'DELETE', path: '/v1/schedules/a%2Fb' });
  });

  it('refuses what it cannot send', () => {
    expect(() => requestOf(['pause'])).toThrow('pause needs a schedule ID');
    expect(() => requestOf(['backfill', 'sch-1'])).toThrow('backfill needs --from ISO and --to ISO');
    expect(() => requestOf(['create', '--name', 'x'])).toThrow('create needs --name and --prompt');
    expect(() => requestOf(['frobnicate'])).toThrow('unknown schedules command: frobnicate');
    expect(() => durationMs('2 weeks', '--every')).toThrow('--every needs a duration');
    expect(durationMs('1h', '--every')).toBe(3_600_000);
  });
});
