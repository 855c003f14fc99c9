import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { json } from 'express';
import type { Server } from 'node:http';
import { NestPinoLogger, createLogger } from '@hub/telemetry';
import { KeyLiveness, Credentials, PersonSessions } from '@hub/auth';
import { HubQueues } from '@hub/queue';
import { IngressModule } from './app.module';
import { KeyChanges } from './auth/key-changes';
import { SessionCookieAuth } from './auth/oidc-session-auth';
import { PG_POOL } from './hub.providers';
import { serveOpenApi } from './http/openapi';
import { accessLog } from './observability/access-log';
import { registerIngressGauges } from './observability/ingress-gauges';
import { LaggingReads } from './read-models/lagging-reads';
import { deferBodyErrors } from './http/body-errors';
import { AuthenticatedWsAdapter } from './transport/authenticated-ws.adapter';
import { OpenSockets } from './transport/open-sockets';
import { TenantSockets } from './limits/tenant-sockets';
import type { IngressSettings } from './settings';

/** Builds and starts one ingress process (also used by e2e tests, on port 0). */
export async function startIngress(settings: IngressSettings): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(IngressModule.forRoot(settings), {
    bodyParser: false,
    // Nest's lines and every `new Logger(ctx)` of ours: JSON on stderr at LOG_LEVEL.
    logger: new NestPinoLogger(createLogger('ingress', settings.logLevel)),
    // Let start-up failures (an unreachable database, say) reach main's one-line message.
    abortOnError: false,
  });
  app.use(accessLog());
  app.use(deferBodyErrors(json({ limit: settings.maxBodyBytes, type: ['application/json', 'application/*+json'] })));
  const sockets = new OpenSockets(app.get(KeyLiveness), settings.wsMaxSockets, settings.keyRecheckMs, app.get(PersonSessions));
  const keys = app.get(KeyChanges);
  // A revoked key's sockets close as soon as the revocation commits, not at the next sweep.
  keys.onChange(() => void sockets.sweep());
  app.useWebSocketAdapter(
    new AuthenticatedWsAdapter(app, app.get(Credentials), settings.maxFrameBytes, sockets, app.get(TenantSockets), app.get(SessionCookieAuth)),
  );
  registerIngressGauges(sockets, app.get(PG_POOL), app.get(HubQueues));
  app.get(LaggingReads).registerGauge();
  serveOpenApi(app);
  app.enableShutdownHooks();
  limitSlowClients(app.getHttpServer() as Server, settings);
  await app.listen(settings.port, settings.host);
  return app;
}

/**
 * A client that trickles its headers or body is cut off (408, socket closed) after the configured
 * time; Node's default held one for 300 s, before any authentication (issue 11, defect 9). Node
 * checks these deadlines on an interval read at listen time, so it is set here, before listen.
 */
function limitSlowClients(server: Server, settings: IngressSettings): void {
  server.headersTimeout = settings.httpHeadersTimeoutMs;
  server.requestTimeout = settings.httpRequestTimeoutMs;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    5_000,
    Math.max(100, Math.floor(settings.httpHeadersTimeoutMs / 4)),
  );
}
