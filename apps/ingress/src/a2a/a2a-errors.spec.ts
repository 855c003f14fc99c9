import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { DomainError } from '@hub/domain';
import { encodeError } from '@hub/protocol-a2a';
import { InvalidInputException } from '../http/body-errors';
import { a2aErrorOf } from './a2a-errors';

// What reaches the A2A filter from around the controller, as JSON-RPC errors: never problem+json.

const wire = (e: unknown) => {
  const { error, httpStatus } = a2aErrorOf(e);
  const w = encodeError(error, 3);
  return {
    status: httpStatus ?? w.httpStatus,
    code: w.body.error.code,
    reason: w.body.error.data[0].reason,
    metadata: w.body.error.data[0].metadata,
    retryAfterS: w.retryAfterS,
  };
};

describe('a2aErrorOf', () => {
  it('the guard: no key is 401 -32050; a role that may not is 403 -32051', () => {
    expect(wire(new DomainError('UNAUTHENTICATED', 'missing API key'))).toEqual(expect.objectContaining({ status: 401, code: -32050 }));
    expect(wire(new DomainError('FORBIDDEN', 'viewer may not'))).toEqual(expect.objectContaining({ status: 403, code: -32051 }));
  });

  it('a used-up limit is 429 -32052 with its wait in the ErrorInfo and Retry-After', () => {
    expect(wire(new DomainError('RATE_LIMITED', 'turns per minute', { retryAfterMs: 1500 }))).toEqual({
      status: 429,
      code: -32052,
      reason: 'RATE_LIMITED',
      metadata: { retryAfterMs: '1500' },
      retryAfterS: 2,
    });
  });

  it('the body: not JSON -32700, too large 413, refused by the input check -32600 naming the field', () => {
    expect(wire(new BadRequestException('Unexpected token'))).toEqual(expect.objectContaining({ status: 200, code: -32700 }));
    expect(wire(new PayloadTooLargeException())).toEqual(expect.objectContaining({ status: 413, code: -32600 }));
    const input = new InvalidInputException({ kind: 'nul', path: '$.params.message.parts[0].text', message: 'contains NUL' }, 'body');
    expect(wire(input)).toEqual(expect.objectContaining({ status: 200, code: -32600, metadata: { field: '$.params.message.parts[0].text' } }));
    expect(wire(new NotFoundException())).toEqual(expect.objectContaining({ status: 404, code: -32601 }));
  });

  it('anything else is internal, saying nothing more', () => {
    const w = encodeError(a2aErrorOf(new Error('db at 10.0.0.3 refused')).error, 1);
    expect([w.httpStatus, w.body.error]).toEqual([500, expect.objectContaining({ code: -32603, message: 'internal error' })]);
  });
});
