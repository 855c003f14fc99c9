// Telemetry must be running before NestJS (and anything it instruments) is loaded.
import { startTelemetry } from '@hub/telemetry';
import { ConfigError, IngressConfig, parseConfig } from '@hub/config';

function configOrExit(): IngressConfig {
  try {
    return parseConfig(IngressConfig);
  } catch (e) {
    process.stderr.write(`${e instanceof ConfigError ? e.message : String(e)}\n`);
    process.exit(2);
  }
}

const env = configOrExit();
const telemetry = startTelemetry({
  serviceName: env.OTEL_SERVICE_NAME ?? 'hub-ingress',
  exporter: env.OTEL_TRACES_EXPORTER,
  otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
});

async function main(): Promise<void> {
  require('reflect-metadata');
  const { startIngress } = await import('./bootstrap');
  const { loadIngressSettings } = await import('./hub.providers');
  const settings = loadIngressSettings();
  const { preflight } = await import('./preflight');
  await preflight(settings.databaseUrl, settings.redisUrl);
  const app = await startIngress(settings);
  process.stderr.write(`${JSON.stringify({ msg: 'ingress listening', url: await app.getUrl() })}\n`);
  const stop = async () => {
    await app.close();
    await telemetry.shutdown();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

main().catch((e: unknown) => {
  process.stderr.write(`ingress failed to start: ${(e as Error).message}\n`);
  process.exit(1);
});
