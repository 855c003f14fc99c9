import { DomainError } from '@hub/domain';
import { decodeCursor } from './read-models';

const cursor = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('list cursors', () => {
  it('gives back the position of a cursor of the same list', () => {
    expect(decodeCursor('sessions', cursor({ v: 1, k: 'sessions', p: 42 }))).toBe(42);
    expect(decodeCursor('sessions', undefined)).toBeNull();
  });

  it.each([
    ['another list', cursor({ v: 1, k: 'approvals', p: 42 })],
    ['another version', cursor({ v: 2, k: 'sessions', p: 42 })],
    ['a negative position', cursor({ v: 1, k: 'sessions', p: -1 })],
    ['a fractional position', cursor({ v: 1, k: 'sessions', p: 1.5 })],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['not base64url', 'a+b/c='],
    ['too long', 'A'.repeat(300)],
    ['empty', ''],
  ])('refuses %s as INVALID_COMMAND naming the cursor field', (_, c) => {
    let error: unknown;
    try {
      decodeCursor('sessions', c);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toEqual(expect.objectContaining({ code: 'INVALID_COMMAND', details: { field: 'cursor' } }));
  });
});
