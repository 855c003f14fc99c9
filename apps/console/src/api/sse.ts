import { problemOf } from './client';

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** Parses complete `\n\n`-terminated SSE blocks off `buffer`; returns the events and the rest. */
export function parseSse(buffer: string): { events: SseEvent[]; rest: string } {
  const events: SseEvent[] = [];
  const blocks = buffer.replace(/\r\n/g, '\n').split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    const ev: SseEvent = { event: 'message', data: '' };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':') || line === '') continue;
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (field === 'event') ev.event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') ev.id = value;
    }
    if (data.length === 0) continue;
    ev.data = data.join('\n');
    events.push(ev);
  }
  return { events, rest };
}

/**
 * Server-Sent Events over fetch(): EventSource cannot send an Authorization header, and the key
 * must not go in the URL. Resolves when the server ends the stream; rejects on an HTTP error
 * (an ApiError) or a dropped connection.
 */
export async function readSse(url: string, headers: Record<string, string>, onEvent: (e: SseEvent) => void, signal: AbortSignal): Promise<void> {
  const res = await fetch(url, { headers: { ...headers, Accept: 'text/event-stream' }, signal, cache: 'no-store' });
  if (!res.ok) throw await problemOf(res);
  if (!res.body) throw new Error('the stream has no body');
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    const parsed = parseSse(buffer + value);
    buffer = parsed.rest;
    parsed.events.forEach(onEvent);
  }
}
