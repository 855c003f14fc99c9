// Telemetry must be running before NestJS (and anything it instruments) is loaded.
import { installProcessGuards, startTelemetry } from '@hub/telemetry';
import { runUntilSignal, settingsOrExit } from '@hub/config';
import { loadIngressSettings } from './settings';

const settings = settingsOrExit(() => loadIngressSettings());
const telemetry = startTelemetry(settings.telemetry);
installProcessGuards('ingress');

runUntilSignal('ingress', async () => {
  const { preflight, useRedisSentinel } = await import('./preflight');
  // Redis through Sentinel (HUB_REDIS_SENTINELS) before any Redis connection is opened.
  useRedisSentinel(settings.redisSentinel);
  await preflight(settings.databaseUrl, settings.redisUrl, settings.dbPoolSize);
  require('reflect-metadata');
  const { startIngress } = await import('./bootstrap');
  const app = await startIngress(settings);
  process.stderr.write(`${JSON.stringify({ msg: 'ingress listening', url: await app.getUrl() })}\n`);
  return async () => {
    await app.close();
    await telemetry.shutdown();
  };
});
