import { ExportResultCode } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTelemetry } from './sdk';
import { StderrSpanExporter } from './stderr-exporter';
import { currentTraceparent, withSpan } from './spans';

describe('startTelemetry', () => {
  it("installs a real tracer provider for exporter 'none', so traceparent exists", async () => {
    const telemetry = startTelemetry({ serviceName: 'none-spec', exporter: 'none' });
    try {
      const headers = await withSpan('op', {}, () => currentTraceparent());
      expect(headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(headers.traceparent).not.toMatch(/^00-0{32}-/);
    } finally {
      await telemetry.shutdown();
    }
  });

  it('refuses a second start while running, and can start again after shutdown', async () => {
    const first = startTelemetry({ serviceName: 'twice', exporter: 'none' });
    expect(() => startTelemetry({ serviceName: 'twice', exporter: 'none' })).toThrow('already running');
    await first.shutdown();
    expect(await withSpan('after-shutdown', {}, () => currentTraceparent())).toEqual({});
    const exporter = new InMemorySpanExporter();
    const second = startTelemetry({ serviceName: 'again', exporter: 'none', detectResources: false, spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    await withSpan('second-run', {}, () => undefined);
    // Read before shutdown: shutting the in-memory exporter down empties it.
    expect(exporter.getFinishedSpans().map((s) => [s.name, s.resource.attributes['service.name']])).toEqual([['second-run', 'again']]);
    await second.shutdown();
  });
});

describe('StderrSpanExporter', () => {
  it('writes one JSON line per span', async () => {
    const lines: string[] = [];
    const memory = new InMemorySpanExporter();
    const telemetry = startTelemetry({
      serviceName: 'console-spec',
      exporter: 'none',
      detectResources: false,
      spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
    });
    await withSpan('printed', { 'hub.turn_id': 't' }, () => undefined);
    const exporter = new StderrSpanExporter((line) => lines.push(line));
    const codes: ExportResultCode[] = [];
    exporter.export(memory.getFinishedSpans(), (result) => codes.push(result.code));
    await telemetry.shutdown();
    expect(codes).toEqual([ExportResultCode.SUCCESS]);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ span: 'printed', service: 'console-spec', attributes: { 'hub.turn_id': 't' } });
  });
});
