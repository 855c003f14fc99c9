import { DomainError } from '@hub/domain';
import { serialiseEvents } from './event-validation';
import type { NewEvent } from './types';

const meta = { correlationId: 'c' };
const one = (data: unknown, extra: Partial<NewEvent> = {}): NewEvent[] => [{ type: 'T', data, metadata: meta, ...extra }];
const newId = () => '00000000-0000-4000-8000-000000000000';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof DomainError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'accepted';
}

describe('serialiseEvents', () => {
  it('serialises once, keeps key order, drops undefined properties and assigns missing ids', () => {
    const [s] = serialiseEvents(one({ b: 1, a: undefined, c: [1, { d: null }] }), 1000, newId);
    expect(s).toEqual({ eventId: newId(), type: 'T', data: '{"b":1,"c":[1,{"d":null}]}', metadata: '{"correlationId":"c"}', bytes: 26 + 21 });
  });

  it.each([
    [{ x: undefined }, 'accepted'],
    [[undefined], 'INVALID_EVENT: event T is not storable JSON: data[0] is undefined'],
    [{ n: Infinity }, 'INVALID_EVENT: event T is not storable JSON: data.n is Infinity'],
    [{ s: Symbol('s') }, 'INVALID_EVENT: event T is not storable JSON: data.s is a symbol'],
    [{ m: new Map() }, 'INVALID_EVENT: event T is not storable JSON: data.m is not a plain object'],
    [{ s: '\ud800x' }, 'INVALID_EVENT: event T is not storable JSON: data.s contains U+0000 or a lone surrogate'],
    [{ ok: '😀' }, 'accepted'],
    [undefined, 'INVALID_EVENT: event T is not storable JSON: data is undefined'],
    [new Array(3), 'INVALID_EVENT: event T is not storable JSON: data is a sparse array'],
  ])('judges %p: %s', (data, expected) => {
    expect(codeOf(() => serialiseEvents(one(data), 1000, newId))).toBe(expected);
  });

  it('counts data and metadata in UTF-8 bytes against the limit, naming type and size', () => {
    const data = { s: 'é'.repeat(20) }; // 40 bytes of text, 49 with the JSON around it
    const size = Buffer.byteLength(JSON.stringify(data)) + Buffer.byteLength(JSON.stringify(meta));
    expect(codeOf(() => serialiseEvents(one(data), size, newId))).toBe('accepted');
    expect(codeOf(() => serialiseEvents(one(data), size - 1, newId))).toBe(`EVENT_TOO_LARGE: event T is ${size} bytes, more than the ${size - 1} allowed`);
  });

  it('requires a type', () => {
    expect(codeOf(() => serialiseEvents([{ type: '', data: {}, metadata: meta }], 1000, newId))).toMatch(/INVALID_EVENT/);
  });
});
