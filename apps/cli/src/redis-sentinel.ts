/**
 * Redis through Sentinel for this process's clients, loaded by main.ts only when
 * HUB_REDIS_SENTINELS is set: the queue library (BullMQ, ioredis) is otherwise loaded by the
 * commands that open Redis connections (`status`, `retention run`), and only by them.
 */
export { useRedisSentinel } from '@hub/queue';
