import { RPCType, setRPCMetadata } from '@opentelemetry/core';
import { context, trace } from '@opentelemetry/api';
import { failRequestSpans, withRequestTrace, withSpan } from './spans';
import { startInMemoryTelemetry, type InMemoryTelemetry, type RecordedSpan } from './testing';

// Issue 17: a request's spans are in the caller's trace, under the HTTP server span when the
// instrumentation made one; a failed request is ERROR with its domain code, server span included.

let telemetry: InMemoryTelemetry;
beforeAll(() => {
  telemetry = startInMemoryTelemetry('request-spans-spec');
});
afterAll(() => telemetry.shutdown());
beforeEach(() => telemetry.reset());

const span = (name: string): RecordedSpan => {
  const found = telemetry.spans().find((s) => s.name === name);
  if (found === undefined) throw new Error(`no span ${name}`);
  return found;
};
const CLIENT = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };

/** As the HTTP instrumentation serves a request: a server span, active, named in the RPC metadata. */
function asHttpServer<T>(fn: () => Promise<T>): Promise<T> {
  return withSpan('POST /v1/things', {}, () => {
    const server = trace.getActiveSpan();
    if (server === undefined) throw new Error('no active span');
    return context.with(setRPCMetadata(context.active(), { type: RPCType.HTTP, span: server }), fn);
  });
}

describe('withRequestTrace', () => {
  it("without a server span, continues the caller's traceparent", async () => {
    await withRequestTrace(CLIENT, () => withSpan('handler', {}, () => undefined));
    expect(span('handler').traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(span('handler').parentSpanId).toBe('b7ad6b7169203331');
  });

  it('under the HTTP server span keeps it as the parent (it already continued the caller)', async () => {
    await asHttpServer(() => withRequestTrace(CLIENT, () => withSpan('handler', {}, () => undefined)));
    expect(span('handler').parentSpanId).toBe(span('POST /v1/things').spanId);
  });

  it('without either, starts a new trace', async () => {
    await withRequestTrace({}, () => withSpan('alone', {}, () => undefined));
    expect(span('alone').parentSpanId).toBeUndefined();
  });
});

describe('failRequestSpans', () => {
  it('marks the current span and the HTTP server span ERROR with the domain code', async () => {
    await asHttpServer(() => withSpan('handler', {}, () => failRequestSpans('SESSION_NOT_FOUND', 'session x not found')));
    for (const name of ['handler', 'POST /v1/things']) {
      expect(span(name)).toEqual(expect.objectContaining({ status: 'error', statusMessage: 'SESSION_NOT_FOUND: session x not found' }));
      expect(span(name).attributes['hub.error_code']).toBe('SESSION_NOT_FOUND');
    }
  });

  it('is a no-op outside any span', () => {
    expect(() => failRequestSpans('FORBIDDEN', 'no')).not.toThrow();
    expect(telemetry.spans()).toEqual([]);
  });
});
