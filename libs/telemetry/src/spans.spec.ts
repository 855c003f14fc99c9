import { context, type Context } from '@opentelemetry/api';
import { ATTR } from './attributes';
import { currentCorrelationId, runWithCorrelation } from './correlation';
import { contextFromHeaders, contextFromTraceparent, currentSpanIds, currentTraceparent, setSpanAttributes, withContext, withSpan } from './spans';
import { startInMemoryTelemetry, type InMemoryTelemetry, type RecordedSpan } from './testing';

let telemetry: InMemoryTelemetry;
beforeAll(() => {
  telemetry = startInMemoryTelemetry('spans-spec');
});
afterAll(() => telemetry.shutdown());
beforeEach(() => telemetry.reset());

function span(name: string): RecordedSpan {
  const found = telemetry.spans().find((s) => s.name === name);
  if (found === undefined)
    throw new Error(
      `no span ${name}; have ${telemetry
        .spans()
        .map((s) => s.name)
        .join(', ')}`,
    );
  return found;
}

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/;

describe('correlation id on spans', () => {
  it('is on every span started inside runWithCorrelation, nested ones and ones after an await', async () => {
    await runWithCorrelation('corr-1', () =>
      withSpan('outer', {}, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        await withSpan('inner', { [ATTR.TURN_ID]: 't1' }, () => withSpan('innermost', {}, () => 'done'));
      }),
    );
    for (const name of ['outer', 'inner', 'innermost']) {
      expect(span(name).attributes[ATTR.CORRELATION_ID]).toBe('corr-1');
    }
    expect(span('inner').attributes[ATTR.TURN_ID]).toBe('t1');
    expect(span('inner').parentSpanId).toBe(span('outer').spanId);
    expect(span('innermost').parentSpanId).toBe(span('inner').spanId);
  });

  it('is absent outside runWithCorrelation and does not leak between concurrent requests', async () => {
    await withSpan('uncorrelated', {}, () => undefined);
    await Promise.all([
      runWithCorrelation('a', () => withSpan('req-a', {}, () => new Promise((resolve) => setTimeout(resolve, 5)))),
      runWithCorrelation('b', () => withSpan('req-b', {}, () => new Promise((resolve) => setTimeout(resolve, 1)))),
    ]);
    expect(span('uncorrelated').attributes).not.toHaveProperty(ATTR.CORRELATION_ID);
    expect(span('req-a').attributes[ATTR.CORRELATION_ID]).toBe('a');
    expect(span('req-b').attributes[ATTR.CORRELATION_ID]).toBe('b');
    expect(currentCorrelationId()).toBeUndefined();
  });
});

describe('correlation id inherited', () => {
  it("is taken from the parent span by a span that starts outside the correlation context (a library's)", async () => {
    let captured: Context | undefined;
    await runWithCorrelation('corr-p', () => withSpan('server', {}, () => void (captured = context.active())));
    await withContext(captured as Context, () => withSpan('library', {}, () => undefined));
    await withSpan('orphan', {}, () => undefined);
    expect(span('library').attributes[ATTR.CORRELATION_ID]).toBe('corr-p');
    expect(span('library').parentSpanId).toBe(span('server').spanId);
    expect(span('orphan').attributes).not.toHaveProperty(ATTR.CORRELATION_ID);
  });
});

describe('trace context propagation', () => {
  it('produces a traceparent inside a span even with no exporter, and none outside', async () => {
    expect(currentTraceparent()).toEqual({});
    const inside = await withSpan('producer', {}, () => currentTraceparent());
    expect(inside.traceparent).toMatch(TRACEPARENT);
    expect(inside.traceparent).toContain(span('producer').traceId);
    expect(inside.traceparent).toContain(span('producer').spanId);
  });

  it('continues a trace whose traceparent came through a queue', async () => {
    // "ingress": a span whose context goes into a job payload as JSON.
    const payload = JSON.stringify(await withSpan('enqueue', {}, () => currentTraceparent()));
    // "worker": a fresh root context, only the payload to go on.
    const received = JSON.parse(payload) as { traceparent?: string; tracestate?: string };
    const ids = await withContext(contextFromTraceparent(received.traceparent, received.tracestate), () => withSpan('process', {}, () => currentSpanIds()));
    expect(span('process').traceId).toBe(span('enqueue').traceId);
    expect(span('process').parentSpanId).toBe(span('enqueue').spanId);
    expect(ids?.traceId).toBe(span('enqueue').traceId);
  });

  it('keeps tracestate', async () => {
    const ctx = contextFromTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'vendor=abc');
    const headers = await withContext(ctx, () => withSpan('child', {}, () => currentTraceparent()));
    expect(headers.tracestate).toBe('vendor=abc');
    expect(headers.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-/);
  });

  it("reads an upgrade request's headers, a repeated header by its first value", async () => {
    const ctx = contextFromHeaders({
      traceparent: ['00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'ignored'],
      tracestate: 'vendor=abc',
      host: 'x',
    });
    const headers = await withContext(ctx, () => withSpan('socket', {}, () => currentTraceparent()));
    expect(span('socket').parentSpanId).toBe('b7ad6b7169203331');
    expect(headers.tracestate).toBe('vendor=abc');
  });

  it('starts a new trace when the traceparent is missing or malformed', async () => {
    await withContext(contextFromTraceparent('garbage'), () => withSpan('from-garbage', {}, () => undefined));
    await withContext(contextFromTraceparent(undefined), () => withSpan('from-nothing', {}, () => undefined));
    expect(span('from-garbage').parentSpanId).toBeUndefined();
    expect(span('from-nothing').parentSpanId).toBeUndefined();
    expect(span('from-garbage').traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('withSpan', () => {
  it('records a thrown error, marks the span as failed, ends it and rethrows', async () => {
    const failure = new Error('model exploded');
    await expect(withSpan('failing', {}, () => Promise.reject(failure))).rejects.toBe(failure);
    const failed = span('failing');
    expect(failed.status).toBe('error');
    expect(failed.statusMessage).toBe('model exploded');
    expect(failed.events.map((e) => e.name)).toEqual(['exception']);
    expect(failed.events[0]?.attributes['exception.message']).toBe('model exploded');
  });

  it('records non-Error throws too', async () => {
    await expect(
      withSpan('throws-string', {}, () => {
        throw 'nope';
      }),
    ).rejects.toBe('nope');
    expect(span('throws-string').status).toBe('error');
    expect(span('throws-string').statusMessage).toBe('nope');
  });

  it('leaves a successful span unset, with its attributes and events, dropping undefined values', async () => {
    const result = await withSpan('ok', { [ATTR.SESSION_ID]: 's1', [ATTR.TURN_ID]: undefined }, (handle) => {
      handle.setAttributes({ [ATTR.STEP]: 2 });
      handle.addEvent('checkpoint', { [ATTR.GLOBAL_POSITION]: 42 });
      setSpanAttributes({ [ATTR.OUTCOME]: 'completed' });
      return 7;
    });
    expect(result).toBe(7);
    const ok = span('ok');
    expect(ok.status).toBe('unset');
    expect(ok.attributes).toEqual({ [ATTR.SESSION_ID]: 's1', [ATTR.STEP]: 2, [ATTR.OUTCOME]: 'completed' });
    expect(ok.events).toEqual([{ name: 'checkpoint', attributes: { [ATTR.GLOBAL_POSITION]: 42 } }]);
  });
});
