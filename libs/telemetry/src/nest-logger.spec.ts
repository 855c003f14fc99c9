import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { NestPinoLogger } from './nest-logger';

function capture(level: 'info' | 'warn' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { lines, nest: new NestPinoLogger(createLogger('test', level, { destination })) };
}

describe('NestPinoLogger', () => {
  it("writes one JSON line per call, with Nest's context and an error's stack as fields", () => {
    const { lines, nest } = capture();
    nest.log('listening', 'Bootstrap');
    nest.error('boom', 'Error: boom\n    at x (y.ts:1:1)', 'WsAdapter');
    nest.error(new RangeError('Max payload size exceeded'));
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, msg: 'listening', context: 'Bootstrap' }),
      expect.objectContaining({ level: 50, msg: 'boom', context: 'WsAdapter', stack: expect.stringContaining('at x') }),
      expect.objectContaining({ level: 50, msg: 'Max payload size exceeded', err: expect.objectContaining({ name: 'RangeError' }) }),
    ]);
  });

  it('honours the level: below it nothing is written', () => {
    const { lines, nest } = capture('warn');
    nest.log('quiet');
    nest.debug('quieter');
    nest.warn('loud', 'Ctx');
    expect(lines.map((l) => l['msg'])).toEqual(['loud']);
  });

  it("keeps Nest's start-up chatter at debug", () => {
    const { lines, nest } = capture();
    nest.log('Mapped {/health, GET} route', 'RouterExplorer');
    nest.log('a line of ours', 'worker');
    expect(lines.map((l) => l['msg'])).toEqual(['a line of ours']);
  });
});
