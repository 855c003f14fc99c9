import { DomainError } from '@hub/domain';
import { isClientFacing, publicErrorMessage } from './public-error';

describe('what a WebSocket error frame may say (issue 11, defect 9)', () => {
  const connRefused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });

  it('keeps our own and client-facing domain messages', () => {
    expect(isClientFacing(new DomainError('SESSION_BUSY', 'session s-1 is running turn t1'))).toBe(true);
    expect(isClientFacing(new Error('no episode e-1'))).toBe(true);
  });

  it('hides driver, OS, Prisma and queue-library messages, and anything naming an address', () => {
    expect(isClientFacing(connRefused())).toBe(false);
    expect(isClientFacing(new AggregateError([connRefused()], 'connect failed'))).toBe(false);
    expect(isClientFacing(Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }))).toBe(false);
    expect(isClientFacing(Object.assign(new Error('Invalid invocation'), { name: 'PrismaClientKnownRequestError' }))).toBe(false);
    expect(isClientFacing(new DomainError('INTERNAL', 'command failed: Missing lock for job 7'))).toBe(false);
    expect(isClientFacing(new DomainError('PROVIDER_DOWN', 'fetch failed'))).toBe(false);
    expect(isClientFacing(new Error('cannot reach redis://user:pw@cache:6379'))).toBe(false);
    expect(isClientFacing(new Error('upstream localhost:8080 did not answer'))).toBe(false);
    expect(isClientFacing('a string')).toBe(false);
  });

  it('says "internal error" with the correlation id, and logs the detail under that id', () => {
    const lines: string[] = [];
    const message = publicErrorMessage(connRefused(), { error: (m: string) => void lines.push(m) }, 'open episode', 'corr-9');
    expect(message).toBe('internal error (correlation id corr-9)');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('corr-9');
    expect(lines[0]).toContain('ECONNREFUSED 127.0.0.1:5432');
  });
});
