// Telemetry first: it must be running before the libraries it traces are loaded.
import { NestPinoLogger, createLogger, installProcessGuards, serveMetrics, startTelemetry } from '@hub/telemetry';
import { runUntilSignal, settingsOrExit } from '@hub/config';
import { createServer } from 'node:http';
import { loadWorkerSettings } from './settings';

const settings = settingsOrExit(() => loadWorkerSettings());
const telemetry = startTelemetry(settings.telemetry);
installProcessGuards('worker');

runUntilSignal('worker', async () => {
  const { preflight, useRedisSentinel } = await import('./preflight');
  // Redis through Sentinel (HUB_REDIS_SENTINELS) before any Redis connection is opened.
  useRedisSentinel(settings.redisSentinel);
  await preflight(settings.databaseUrl, settings.redisUrl, settings.dbPoolSize);
  require('reflect-metadata');
  const { NestFactory } = await import('@nestjs/core');
  const { WorkerModule } = await import('./worker.module');
  const { HubWorker } = await import('./hub-worker');
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(settings), {
    logger: new NestPinoLogger(createLogger('worker', settings.logLevel)),
  });
  await app.init();
  const worker = app.get(HubWorker);
  const health = settings.healthPort
    ? createServer((req, res) => {
        if ((req.url ?? '').split('?')[0] === '/metrics') return serveMetrics(req, res);
        void worker.health().then((h) => {
          res.writeHead(h.ok ? 200 : 503, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ status: h.ok ? 'ok' : 'degraded', worker: worker.id, checks: h.checks }));
        });
      }).listen(settings.healthPort)
    : null;
  process.stderr.write(
    `${JSON.stringify({ msg: 'worker started', worker: worker.id, concurrency: settings.concurrency, healthPort: settings.healthPort || null })}\n`,
  );
  return async () => {
    health?.close();
    await app.close();
    await telemetry.shutdown();
  };
});
