import { Writable } from 'node:stream';
import { runWithCorrelation } from './correlation';
import { createLogger } from './logger';
import { withSpan } from './spans';
import { startInMemoryTelemetry, type InMemoryTelemetry } from './testing';

let telemetry: InMemoryTelemetry;
beforeAll(() => {
  telemetry = startInMemoryTelemetry('logger-spec');
});
afterAll(() => telemetry.shutdown());

function capture(): { stream: Writable; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { stream, lines };
}

describe('createLogger', () => {
  it('mixes in trace_id, span_id and correlation_id of the active context', async () => {
    const out = capture();
    const log = createLogger('worker', 'info', { destination: out.stream });
    await runWithCorrelation('corr-9', () => withSpan('turn', {}, () => log.info('step')));
    log.info('outside');
    const [inside, outside] = out.lines();
    const turn = telemetry.spans().find((s) => s.name === 'turn');
    expect(inside).toMatchObject({ name: 'worker', msg: 'step', correlation_id: 'corr-9', trace_id: turn?.traceId, span_id: turn?.spanId });
    expect(outside).not.toHaveProperty('trace_id');
    expect(outside).not.toHaveProperty('correlation_id');
  });

  it('redacts credentials', () => {
    const out = capture();
    const log = createLogger('ingress', 'info', { destination: out.stream });
    log.info(
      {
        authorization: 'Bearer abc',
        req: { headers: { authorization: 'Bearer def' } },
        provider: { apiKey: 'sk-1' },
        user: { password: 'pw', token: 't', auth: 'a', name: 'ok' },
      },
      'hello',
    );
    const text = JSON.stringify(out.lines());
    for (const secret of ['Bearer abc', 'Bearer def', 'sk-1', '"pw"', '"t"', '"a"']) expect(text).not.toContain(secret);
    expect(out.lines()[0]).toMatchObject({ authorization: '<redacted>', provider: { apiKey: '<redacted>' }, user: { name: 'ok', password: '<redacted>' } });
  });

  it('honours the level', () => {
    const out = capture();
    const log = createLogger('cli', 'warn', { destination: out.stream });
    log.info('quiet');
    log.warn('loud');
    expect(out.lines().map((line) => line['msg'])).toEqual(['loud']);
  });
});
