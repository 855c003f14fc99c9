import { EventEmitter } from 'node:events';
import { guarded } from './guard';

describe('guarded', () => {
  it('keeps a throwing listener from leaving the emitter, and later listeners still run', () => {
    const em = new EventEmitter();
    const seen: string[] = [];
    em.on(
      'x',
      guarded('test', () => {
        throw new URIError('URI malformed');
      }),
    );
    em.on('x', () => seen.push('second'));
    expect(() => em.emit('x')).not.toThrow();
    expect(seen).toEqual(['second']);
  });

  it('catches a rejected async listener, so it never becomes an unhandled rejection', async () => {
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);
    try {
      guarded('test', async () => {
        throw new Error('late');
      })();
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});
