import { useQuery, useQueryClient } from '@tanstack/react-query';
import { isNotFound, type HubApi } from '../api/client';
import type { RecordedEvent } from '../api/types';

export type LoggedEvent = RecordedEvent;

const PAGE = 1000;
const FOLLOW_MS = 2000;

/**
 * Every event of a session, oldest first, kept live. The log only grows, so each refetch reads
 * forward from the last stream position already held (`?after=`) and appends; a refetch that
 * finds nothing returns the same array, so nothing re-renders. A 404 (no such session, or
 * another tenant's) is final: no polling (and, as every 4xx, no retry).
 */
export function useEventLog(api: HubApi, sessionId: string) {
  const queryClient = useQueryClient();
  const queryKey = ['session-events', sessionId];
  return useQuery({
    queryKey,
    queryFn: async (): Promise<LoggedEvent[]> => {
      const held = queryClient.getQueryData<LoggedEvent[]>(queryKey) ?? [];
      const read: LoggedEvent[] = [];
      let after = held.at(-1)?.streamPosition ?? 0;
      for (;;) {
        const page = await api.events(sessionId, after, PAGE);
        read.push(...page.events);
        if (page.next === null || page.events.length === 0) break;
        after = page.next;
      }
      return read.length === 0 ? held : [...held, ...read];
    },
    // Appending is the whole update; comparing thousands of events deeply on every poll is not.
    structuralSharing: false,
    refetchInterval: (q) => (isNotFound(q.state.error) ? false : FOLLOW_MS),
  });
}
