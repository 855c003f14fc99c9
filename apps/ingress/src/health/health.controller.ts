import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { watchRedis } from '@hub/queue';
import { Controller, Get, Inject, Res, type OnModuleDestroy } from '@nestjs/common';
import type { Response } from 'express';
import Redis from 'ioredis';
import { EventStore } from '@hub/event-store';
import { Public } from '../auth/public.decorator';
import { INGRESS_CONFIG, type IngressSettings } from '../hub.providers';

// Health reads the log's head for a tenant that never exists: a real query, no data exposed.
const PROBE_TENANT = '00000000-0000-0000-0000-000000000000';

async function timed(check: () => Promise<unknown>): Promise<{ ok: boolean; ms: number; error?: string }> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([check(), new Promise((_, rej) => (timer = setTimeout(() => rej(new Error('timed out after 2000 ms')), 2000)))]);
    return { ok: true, ms: Math.round(performance.now() - t0) };
  } catch (e) {
    return { ok: false, ms: Math.round(performance.now() - t0), error: (e as Error).message };
  } finally {
    // Each probe's deadline goes with it: a scraped /health must not leave a 2 s timer per call behind.
    clearTimeout(timer);
  }
}

/** `GET /health` (readiness): 200 when Postgres and Redis answer, 503 naming what does not; `GET /health/live` (liveness). */
@ApiTags('operations')
@Controller('health')
export class HealthController implements OnModuleDestroy {
  private readonly redis: Redis;

  constructor(
    private readonly store: EventStore,
    @Inject(INGRESS_CONFIG) settings: IngressSettings,
  ) {
    this.redis = watchRedis(new Redis(settings.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false }));
  }

  /** Its probe connection goes with the application (it kept a closed application's process alive). */
  async onModuleDestroy(): Promise<void> {
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }

  @Public()
  @ApiOperation({ summary: 'Liveness: the process serves HTTP, whatever the stores do; no key', security: [] })
  @Get('live')
  live(): { status: 'ok' } {
    // A liveness probe must not depend on Postgres or Redis: a store outage would restart every pod.
    return { status: 'ok' };
  }

  @Public()
  @ApiOperation({ summary: 'Readiness: Postgres and Redis answer; no key', security: [] })
  @Get()
  async health(@Res() res: Response): Promise<void> {
    if (this.redis.status === 'wait' || this.redis.status === 'end') await this.redis.connect().catch(() => undefined);
    const [postgres, redis] = await Promise.all([timed(() => this.store.headPosition(PROBE_TENANT)), timed(() => this.redis.ping())]);
    const ok = postgres.ok && redis.ok;
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'degraded', checks: { postgres, redis } });
  }
}
