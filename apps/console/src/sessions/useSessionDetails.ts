import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { HubApi } from '../api/client';
import type { RecordedEvent, Usage } from '../api/types';

export interface ToolDetail {
  input: unknown;
  output?: string;
  status?: string;
}

/** What a tool-call event tells of its call (the event type narrows `data`, as the document types it). */
function toolCall(e: RecordedEvent): [string, Partial<ToolDetail>] | null {
  if (e.type === 'ToolCallStarted') return [e.data.toolCallId, { input: e.data.input }];
  if (e.type === 'ToolCallCompleted') return [e.data.toolCallId, { output: e.data.output, status: e.data.status }];
  return null;
}

/**
 * Each tool call's arguments and result, by tool call id. The transport's state names a call and
 * its status only; the log has the rest (`GET /v1/sessions/ID/events`), read forward from the
 * last page seen whenever the number of finished calls (`finished`) grows.
 */
export function useToolDetails(api: HubApi, sessionId: string, finished: number): Map<string, ToolDetail> {
  const [details, setDetails] = useState<Map<string, ToolDetail>>(new Map());
  const after = useRef(0);
  const reading = useRef<Promise<void> | null>(null);
  useEffect(() => {
    if (finished === 0) return;
    let live = true;
    const read = async () => {
      for (;;) {
        const page = await api.events(sessionId, after.current, 500);
        const found: [string, Partial<ToolDetail>][] = [];
        for (const e of page.events) {
          const call = toolCall(e);
          if (call) found.push(call);
          after.current = e.streamPosition;
        }
        if (live && found.length)
          setDetails((prev) => {
            const next = new Map(prev);
            for (const [id, d] of found) next.set(id, { ...(next.get(id) ?? { input: null }), ...d });
            return next;
          });
        if (page.next === null) return;
      }
    };
    // One reader at a time: a newer trigger waits for the running read, then reads on from there.
    reading.current = (reading.current ?? Promise.resolve()).then(read, read).catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api, sessionId, finished]);
  return details;
}

/** The session's token usage, summed over its turns (read model), refreshed as turns end. */
export function useSessionUsage(api: HubApi, sessionId: string, turnsSeen: number): Usage | undefined {
  const q = useQuery({
    queryKey: ['session-usage', sessionId, turnsSeen],
    queryFn: async () => {
      const page = await api.turns(sessionId, 200);
      return page.turns.reduce<Usage>(
        (sum, t) => ({
          promptTokens: sum.promptTokens + t.usage.promptTokens,
          completionTokens: sum.completionTokens + t.usage.completionTokens,
          totalTokens: sum.totalTokens + t.usage.totalTokens,
        }),
        { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      );
    },
    retry: false,
    enabled: turnsSeen > 0,
  });
  return q.data;
}
