import { DomainError } from '@hub/domain';
import { isUuid } from './ids';
import type { NewEvent } from './types';

export const DEFAULT_MAX_EVENT_BYTES = 256 * 1024;

// Postgres JSON cannot hold U+0000 in text, and a lone surrogate is not valid Unicode: both
// would fail (or change) in the database, so they are refused up front with a typed error.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorable = (text: string): boolean => text.includes('\u0000') || LONE_SURROGATE.test(text);

/** An event checked and serialised once, before any database work. */
export interface SerialisedEvent {
  eventId: string;
  type: string;
  data: string;
  metadata: string;
  /** UTF-8 bytes of `data` + `metadata`: what the log stores for it (the `json` columns keep the text). */
  bytes: number;
}

/**
 * Refuses anything that would not come back from the log exactly as given: non-JSON values
 * (functions, bigint, symbols, NaN/Infinity, class instances such as Date, cycles), text
 * Postgres cannot store, and events larger than `maxBytes`.
 */
export function serialiseEvents(events: NewEvent[], maxBytes: number, newId: () => string): SerialisedEvent[] {
  return events.map((e, index) => {
    const type = typeof e.type === 'string' ? e.type : '';
    if (type.length === 0 || type.length > 200) {
      throw new DomainError('INVALID_EVENT', `event #${index} has no valid type`, { index });
    }
    if (e.eventId !== undefined && !isUuid(e.eventId)) {
      throw new DomainError('INVALID_EVENT', `event ${type}: eventId must be a UUID`, { type, eventId: e.eventId });
    }
    checkJson(e.data, type, 'data');
    checkJson(e.metadata, type, 'metadata');
    const data = JSON.stringify(e.data);
    const metadata = JSON.stringify(e.metadata);
    const size = Buffer.byteLength(data, 'utf8') + Buffer.byteLength(metadata, 'utf8');
    if (size > maxBytes) {
      throw new DomainError('EVENT_TOO_LARGE', `event ${type} is ${size} bytes, more than the ${maxBytes} allowed`, {
        type,
        size,
        maxBytes,
      });
    }
    // Lower case, as the uuid column stores it and the hash chain covers it.
    return { eventId: (e.eventId ?? newId()).toLowerCase(), type, data, metadata, bytes: size };
  });
}

function checkJson(value: unknown, type: string, where: string): void {
  if (value === undefined) throw invalid(type, `${where} is undefined`);
  const problem = findProblem(value, where, new Set());
  if (problem) throw invalid(type, problem);
}

function invalid(type: string, problem: string): DomainError<'INVALID_EVENT'> {
  return new DomainError('INVALID_EVENT', `event ${type} is not storable JSON: ${problem}`, { type, problem });
}

/** The first non-JSON value under `value`, described by its path; undefined when all is JSON. */
function findProblem(value: unknown, path: string, ancestors: Set<object>): string | undefined {
  switch (typeof value) {
    case 'string':
      return unstorable(value) ? `${path} contains U+0000 or a lone surrogate` : undefined;
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path} is ${value}`;
    case 'object':
      return value === null ? undefined : findInObject(value, path, ancestors);
    default:
      return `${path} is a ${typeof value}`;
  }
}

function findInObject(value: object, path: string, ancestors: Set<object>): string | undefined {
  if (ancestors.has(value)) return `${path} is circular`;
  const proto: unknown = Object.getPrototypeOf(value);
  const isArray = Array.isArray(value);
  if (!isArray && proto !== Object.prototype && proto !== null) return `${path} is not a plain object`;
  ancestors.add(value);
  try {
    for (const [key, child] of Object.entries(value)) {
      // JSON drops undefined properties, which is what an optional field means; in an
      // array it would turn into null, so it is refused there.
      if (child === undefined && !isArray) continue;
      if (unstorable(key)) return `${path} has a key with U+0000 or a lone surrogate`;
      const problem = child === undefined ? `${path}[${key}] is undefined` : findProblem(child, isArray ? `${path}[${key}]` : `${path}.${key}`, ancestors);
      if (problem) return problem;
    }
    if (isArray && value.length !== Object.keys(value).length) return `${path} is a sparse array`;
    return undefined;
  } finally {
    ancestors.delete(value);
  }
}
