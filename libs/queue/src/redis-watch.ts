import type { EventEmitter } from 'node:events';
import { dependencyState, type DependencyState } from '@hub/telemetry';

/**
 * Reports `user`'s Redis errors to the process's Redis state (one line per outage, not one per
 * retry) and its reconnects as the way back. An ioredis client or BullMQ object without an
 * `error` listener prints every retry's stack ("Unhandled error event"); every one we open goes
 * through here.
 */
export function watchRedis<T extends EventEmitter>(user: T, state: DependencyState = dependencyState('redis')): T {
  user.on('error', (e: unknown) => state.down(e));
  user.on('ready', () => state.up());
  // BullMQ objects (an ioredis client or a BullMQ Queue/Worker/QueueEvents) hold their ioredis
  // client behind a promise: its `ready` is the way back. (ioredis's own `client` is a command.)
  const client = (user as { client?: unknown }).client;
  if (client instanceof Promise) void client.then((c: EventEmitter) => c.on('ready', () => state.up())).catch(() => undefined);
  return user;
}
