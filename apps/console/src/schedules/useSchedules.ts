import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { HubApi } from '../api/client';
import type { Schedule } from '../api/types';

/** The tenant's schedules (GET /v1/schedules), refreshed every few seconds: their last and next runs move on their own. */
export function useSchedules(api: HubApi) {
  return useQuery({ queryKey: ['schedules'], queryFn: () => api.get('/v1/schedules'), refetchInterval: 3_000 });
}

/** The next fire times of one schedule. */
export function usePreview(api: HubApi, schedule: Schedule, count: number) {
  return useQuery({
    queryKey: ['schedule-preview', schedule.id, schedule.updatedAt, count],
    queryFn: () => api.get('/v1/schedules/{id}/preview', { id: schedule.id }, { count: String(count) }),
  });
}

export type ScheduleAction = { kind: 'pause'; note: string } | { kind: 'resume' } | { kind: 'trigger' } | { kind: 'backfill'; from: string; to: string };

/** Pause (with a note), resume, run now, backfill a range: each a POST, then the list again. */
export function useScheduleAction(api: HubApi, id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (a: ScheduleAction): Promise<string> => {
      const path = `/v1/schedules/{id}/${a.kind}` as const;
      const body = a.kind === 'pause' ? { note: a.note.trim() || null } : a.kind === 'backfill' ? { from: a.from, to: a.to } : {};
      const answer = (await api.post(path, { id }, body)) as { asked?: number; scheduledAt?: string | string[] };
      if (a.kind === 'backfill') return `${answer.asked ?? 0} run(s) asked for`;
      if (a.kind === 'trigger') return 'a run was asked for';
      return a.kind === 'pause' ? 'paused' : 'resumed';
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['schedules'] }),
  });
}
