import { randomUUID } from 'node:crypto';
import { actorOf, type Principal } from '@hub/auth';
import { A2A_PUSH_CONFIG_DELETED, A2A_PUSH_CONFIG_SET, DomainError } from '@hub/domain';
import type { EventStore } from '@hub/event-store';
import {
  a2aError,
  a2aPushStreamId,
  foldPushConfigs,
  MAX_PUSH_CONFIGS,
  pushConfigOf,
  pushConfigWire,
  type PushCall,
  type PushConfig,
  type PushConfigInput,
  type TaskRef,
} from '@hub/protocol-a2a';
import type { AddressGuard } from '@hub/webhooks';
import type { SessionAccess } from '../auth/session-access';
import { checkUrl } from '../webhooks/webhook-input';

/** The task folded from the log after the key's read check; throws TASK_NOT_FOUND (the exchange's). */
export type TaskCheck = (p: Principal, ref: TaskRef) => Promise<unknown>;

/**
 * A2A push-notification configs (ADR 0036, amendment): facts on the session's `a2a-push-` stream,
 * read back by folding it; the worker's push outbox reads the same facts. Who may set or delete
 * one may start the task's turns (`submit`); who may read the task may read its configs. A URL
 * is checked by the webhooks' SSRF guard when it is saved, and again on every attempt.
 */
export class A2aPushConfigs {
  constructor(
    private readonly store: EventStore,
    private readonly access: SessionAccess,
    private readonly guard: AddressGuard,
    private readonly task: TaskCheck,
  ) {}

  /** A config's URL, checked (before a `SendMessage` that carries one dispatches anything). */
  async checkedUrl(raw: string): Promise<string> {
    return checkUrl(raw, this.guard).catch((e: unknown) => {
      if (e instanceof DomainError) throw new DomainError('INVALID_COMMAND', `push notification config ${e.message}`, e.details);
      throw e;
    });
  }

  /** Runs one push-config method; its JSON-RPC result. */
  async run(call: PushCall, p: Principal, correlationId: string): Promise<unknown> {
    const { sessionId } = call.task;
    await this.access.check(p, sessionId, call.kind === 'push-set' || call.kind === 'push-delete' ? 'submit' : 'read');
    await this.task(p, call.task);
    switch (call.kind) {
      case 'push-set':
        return this.set(p, call.task, call.config, await this.checkedUrl(call.config.url), correlationId);
      case 'push-get':
        return pushConfigWire(sessionId, this.one(await this.configs(p, call.task), call.configId));
      case 'push-list':
        return { configs: (await this.configs(p, call.task)).map((c) => pushConfigWire(sessionId, c)), nextPageToken: '' };
      case 'push-delete': {
        this.one(await this.configs(p, call.task), call.configId);
        await this.append(p, sessionId, A2A_PUSH_CONFIG_DELETED, { configId: call.configId, turnId: call.task.turnId }, correlationId);
        return {};
      }
    }
  }

  /** Records a config for a task whose URL was checked; its wire form. */
  async set(p: Principal, task: TaskRef, input: PushConfigInput, url: string, correlationId: string): Promise<unknown> {
    const config = pushConfigOf(input, task.turnId, url, randomUUID);
    const live = await this.configs(p, task);
    if (!live.some((c) => c.configId === config.configId) && live.length >= MAX_PUSH_CONFIGS) {
      throw new DomainError('INVALID_COMMAND', `a task has at most ${MAX_PUSH_CONFIGS} push notification configs: delete one first`, { field: 'params' });
    }
    await this.append(p, task.sessionId, A2A_PUSH_CONFIG_SET, config, correlationId);
    return pushConfigWire(task.sessionId, config);
  }

  private async configs(p: Principal, task: TaskRef): Promise<PushConfig[]> {
    const { events } = await this.store.readStream(p.tenantId, a2aPushStreamId(task.sessionId));
    return foldPushConfigs(events).get(task.turnId) ?? [];
  }

  private one(configs: readonly PushConfig[], configId: string): PushConfig {
    const c = configs.find((x) => x.configId === configId);
    if (!c)
      throw new PushRefused(
        a2aError('TASK_NOT_FOUND', `the task has no push notification config ${configId.slice(0, 128)}`, { configId: configId.slice(0, 128) }),
      );
    return c;
  }

  private async append(p: Principal, sessionId: string, type: string, data: object, correlationId: string): Promise<void> {
    const metadata = { correlationId: correlationId || randomUUID(), actor: actorOf(p), protocol: 'a2a' as const };
    await this.store.append(p.tenantId, a2aPushStreamId(sessionId), [{ type, data, metadata } as never], { expectedVersion: 'any' });
  }
}

/** An A2A error raised by the push configs (the exchange answers it as it is). */
export class PushRefused extends Error {
  constructor(readonly error: ReturnType<typeof a2aError>) {
    super(error.message);
  }
}
