import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { GATEWAY_OPTIONS } from '@nestjs/websockets/constants';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { WsAdapter } from '@nestjs/platform-ws';
import { ApiKeyService } from '@hub/auth';
import { createTestDatabase, TEST_REDIS_URL, uniqueQueuePrefix } from '@hub/testing';
import { IngressModule } from '../app.module';
import { CONSOLE_PATH } from '../console/console.module';
import { loadIngressSettings } from '../settings';
import { openApiDocument } from './openapi';
import { OPENENV_HARNESS_PATH, OPENENV_WS_PATH } from '../openenv/openenv-upgrade';

// Issue 17: the OpenAPI document covers every HTTP route Nest registered, and the WebSocket page
// (docs/websocket-protocols.md) every WebSocket gateway. A new controller method or gateway that
// is not in them fails here. Built from the real module on a scratch database.

jest.setTimeout(60_000);

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** The real module on a scratch database, initialised; closed (and its database dropped) after `use`. */
async function withApp(use: (app: NestExpressApplication) => Promise<void>): Promise<void> {
  const db = await createTestDatabase({ prefix: 'openapi' });
  const q = uniqueQueuePrefix('openapi');
  const settings = loadIngressSettings({ DATABASE_URL: db.url, REDIS_URL: TEST_REDIS_URL, HUB_QUEUE_PREFIX: q.prefix, LOG_LEVEL: 'warn' });
  const app = await NestFactory.create<NestExpressApplication>(IngressModule.forRoot(settings), { logger: false });
  try {
    app.useWebSocketAdapter(new WsAdapter(app));
    await app.init();
    await use(app);
  } finally {
    await app.close();
    await q.cleanup();
    await db.drop();
  }
}

type Operation = {
  summary?: string;
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
  responses?: Record<string, { description?: string; headers?: Record<string, unknown> }>;
};

it('documents every tenant limit of the admin API, and the 429 with Retry-After of every route a used-up limit refuses (issue 16)', () =>
  withApp(async (app) => {
    const paths = openApiDocument(app).paths as Record<string, Record<string, Operation>>;
    const fields = ['turnsPerMinute', 'concurrentTurns', 'tokensPerDay', 'sessions', 'openSockets', 'eventBytesPerDay', 'retentionDays'];
    const body = paths['/v1/admin/limits']?.['put']?.requestBody?.content?.['application/json']?.schema?.properties ?? {};
    expect(Object.keys(body).sort()).toEqual([...fields].sort());
    for (const [path, method] of [
      ['/v1/openharness', 'post'],
      ['/v1/zene', 'post'],
      ['/v1/openenv/{env}/reset', 'post'],
      ['/v1/openenv/{env}/step', 'post'],
      ['/v1/sessions/{id}/fork', 'post'],
      ['/v1/sessions/{id}/redrive', 'post'],
    ]) {
      const limited = paths[path]?.[method]?.responses?.['429'];
      expect([path, limited?.description]).toEqual([path, expect.stringMatching(/limit/)]);
      expect([path, Object.keys(limited?.headers ?? {})]).toEqual([path, ['Retry-After']]);
    }
  }));

it('every route Nest registered is in /openapi.json, with its method', () =>
  withApp(async (app) => {
    const express = app.getHttpAdapter().getInstance() as { router?: { stack: Layer[] }; _router?: { stack: Layer[] } };
    const stack = (express.router ?? express._router)?.stack ?? [];
    // The console's static assets are middleware on /console, not API operations.
    const routes = stack
      .filter((l): l is Required<Layer> => l.route !== undefined && !l.route.path.startsWith(CONSOLE_PATH))
      .flatMap((l) => Object.keys(l.route.methods).map((m) => `${m.toUpperCase()} ${l.route.path.replace(/:(\w+)/g, '{$1}')}`));
    expect(routes.length).toBeGreaterThan(20);
    const doc = openApiDocument(app);
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)));
    const missing = routes.filter((r) => !documented.has(r));
    expect(missing).toEqual([]);
    // Each documented operation says what it does.
    for (const item of Object.values(doc.paths))
      for (const op of Object.values(item) as Array<{ summary?: string }>) expect(op.summary).toEqual(expect.any(String));
    // Every gateway's path, as clients call it (OpenEnv's two are rewritten from per-environment
    // paths, openenv-upgrade.ts), has its row on the WebSocket page.
    const publicPath: Record<string, string> = { [OPENENV_WS_PATH]: '/v1/openenv/ENV/ws', [OPENENV_HARNESS_PATH]: '/v1/openenv/ENV/harness' };
    const gateways = [...app.get(ModulesContainer).values()]
      .flatMap((m) => [...m.providers.values()])
      .map((w) => (w.metatype ? (Reflect.getMetadata(GATEWAY_OPTIONS, w.metatype) as { path?: string } | undefined) : undefined))
      .flatMap((o) => (o?.path ? [publicPath[o.path] ?? o.path] : []));
    expect([...new Set(gateways)].sort()).toEqual(['/v1/acp', '/v1/openenv/ENV/harness', '/v1/openenv/ENV/ws', '/v1/transport']);
    const page = readFileSync(join(__dirname, '../../../../docs/websocket-protocols.md'), 'utf8');
    for (const path of gateways) expect([path, page.includes(`\`GET ${path}`)]).toEqual([path, true]);
  }));

it('every query parameter a route checks is in the document, and nothing more (a probe with an unknown one reads the accepted list)', () =>
  withApp(async (app) => {
    await app.listen(0, '127.0.0.1');
    const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const { apiKey } = await app.get(ApiKeyService).createTenant('probe');
    type Parameter = { name: string; in: string; schema?: { enum?: string[] } };
    const paths = openApiDocument(app).paths as Record<string, Record<string, { parameters?: Parameter[] }>>;
    const checked: string[] = [];
    for (const [path, item] of Object.entries(paths)) {
      const documented = (item['get']?.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name);
      if (!item['get'] || path.endsWith('/stream')) continue;
      const url = `${base}${path.replace('{id}', 'probe-session').replace('{env}', 'probe-env').replace('{prefix}', 'hub_probe')}?zz_probe=1`;
      const res = await fetch(url, { headers: { authorization: `Bearer ${apiKey}` } });
      const body = await res.text();
      const accepted = /zz_probe: unknown parameter \(accepted: ([^)]*)\)/.exec(body)?.[1];
      if (accepted === undefined) {
        // A route that does not check its parameters documents none it does not read.
        continue;
      }
      expect([path, res.status]).toEqual([path, 400]);
      expect([path, documented]).toEqual([path, accepted.split(', ')]);
      checked.push(path);
    }
    expect(checked.sort()).toEqual(['/v1/approvals', '/v1/sessions', '/v1/sessions/{id}/events', '/v1/sessions/{id}/turns', '/v1/usage']);
    // The feed is a stream: its one parameter is checked the same way, before the stream starts.
    const feed = await fetch(`${base}/v1/approvals/stream?zz_probe=1`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(feed.status).toBe(400);
    expect(await feed.text()).toContain(`accepted: ${(paths['/v1/approvals/stream']['get'].parameters ?? []).map((x) => x.name).join(', ')})`);
    // Parameters read without that check (protocol routes) are documented too.
    expect((paths['/v1/openenv/{env}/trajectory']['get'].parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name)).toEqual(['episode_id']);
    const zene = (paths['/v1/zene']['post'] as { parameters?: Parameter[] }).parameters ?? [];
    expect(zene.filter((x) => x.in === 'query')).toEqual([
      expect.objectContaining({ name: 'mode', schema: expect.objectContaining({ enum: ['bridge', 'protocol'] }) }),
    ]);
  }));
