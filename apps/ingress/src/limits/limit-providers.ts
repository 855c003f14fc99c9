import { Logger, type OnModuleDestroy, type Provider } from '@nestjs/common';
import { DailyEventBytes, DailyTokens } from '@hub/queue';
import type { IngressSettings } from '../settings';

/** Counts what this process appends, flushed when the application closes. */
class ClosingEventBytes extends DailyEventBytes implements OnModuleDestroy {
  onModuleDestroy(): Promise<void> {
    return this.close();
  }
}

class ClosingTokens extends DailyTokens implements OnModuleDestroy {
  onModuleDestroy(): Promise<void> {
    return this.close();
  }
}

/**
 * The daily counters of tenant limits on the hub's Redis (shared with every worker and ingress):
 * model tokens, which ingress only reads, and event bytes, which ingress also adds to for what it
 * appends itself (admin events, ACP and OpenEnv facts, forks).
 */
export function limitProviders(settings: IngressSettings): Provider[] {
  const log = new Logger('limits');
  return [
    { provide: DailyTokens, useFactory: () => new ClosingTokens(settings.redisUrl, settings.queuePrefix) },
    {
      provide: DailyEventBytes,
      // A lost count under-counts the day; it never fails an append (one line per failed flush).
      useFactory: () => new ClosingEventBytes(settings.redisUrl, settings.queuePrefix, { onError: (e) => log.warn(`event bytes not counted: ${e.message}`) }),
    },
  ];
}
