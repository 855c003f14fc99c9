import type { Browser } from 'playwright-core';
import { HubStack, hubJson } from '@hub/testing';
import { buildConsole, ConsolePage, launch } from './browser';
import { turn } from './hub';

export type Tenant = Awaited<ReturnType<HubStack['createTenant']>>;
type Viewport = { width: number; height: number };

/** What a console browser spec works with; `stack` and `tenant` are there once `beforeAll` has run. */
export interface ConsoleSuite {
  readonly stack: HubStack;
  /** The tenant `acme`, made by `bin/hub tenant create`. */
  readonly tenant: Tenant;
  /** A page of its own at /console/, not signed in (closed and checked for errors after the test). */
  page(viewport?: Viewport): Promise<ConsolePage>;
  /** A page of its own at /console/, signed in with the tenant's key. */
  open(viewport?: Viewport): Promise<ConsolePage>;
  /** One turn of `session` over the transport (hub.ts `turn`), with the tenant's key unless `apiKey` is given. */
  turn(session: string, prompt: string, until: 'idle' | 'approval', apiKey?: string): Promise<void>;
  /** A new API key of the tenant, made by `bin/hub key create`. */
  newKey(name: string, role: string): Promise<string>;
  /** One JSON request of this hub's API (@hub/testing's `hubJson`), with the tenant's key unless `apiKey` is given. */
  api(method: string, path: string, body?: unknown, apiKey?: string): ReturnType<typeof hubJson>;
}

/**
 * The set-up every console browser spec shares, registered as the spec's Jest hooks: the console
 * built, one browser, a hub of the spec's own (`label` names its database) with one worker and a
 * tenant (`env`: settings of the spec's own for ingress and worker). No page of any test may log an error or throw: collected per page, checked after each test.
 */
export function consoleSuite(label: string, env: { ingressEnv?: Record<string, string>; workerEnv?: Record<string, string> } = {}): ConsoleSuite {
  let stack: HubStack | undefined;
  let tenant: Tenant | undefined;
  let browser: Browser | undefined;
  const pages: ConsolePage[] = [];

  beforeAll(async () => {
    buildConsole();
    // The browser starts while the hub does (each is mostly a process starting); both are kept
    // before a failure of either is thrown, so afterAll ends whichever did start.
    const up = await Promise.allSettled([
      launch().then((b) => (browser = b)),
      HubStack.start({ label, workers: 1, ingressEnv: env.ingressEnv, workerEnv: { HUB_OFFLINE_DELAY_MS: '2', ...env.workerEnv } }).then((s) => (stack = s)),
    ]);
    const failed = up.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    tenant = await started(stack).createTenant('acme');
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), stack?.stop()]);
  });
  afterEach(async () => {
    const errors = pages.flatMap((p) => p.errors);
    await Promise.all(pages.splice(0).map((p) => p.close()));
    expect(errors).toEqual([]);
  });

  const started = <T>(x: T | undefined): T => {
    if (x === undefined) throw new Error(`console suite ${label}: used before its beforeAll ran`);
    return x;
  };
  const suite: ConsoleSuite = {
    get stack() {
      return started(stack);
    },
    get tenant() {
      return started(tenant);
    },
    async page(viewport) {
      const p = await ConsolePage.open(started(browser), suite.stack.url, viewport);
      pages.push(p);
      return p;
    },
    async open(viewport) {
      const p = await suite.page(viewport);
      await p.signIn(suite.tenant.apiKey);
      return p;
    },
    turn: (session, prompt, until, apiKey = suite.tenant.apiKey) => turn(suite.stack, apiKey, session, prompt, until),
    async newKey(name, role) {
      const res = await suite.stack.cli(['key', 'create', suite.tenant.tenantId, '--name', name, '--role', role]);
      if (res.code !== 0) throw new Error(`key create: ${res.stderr}`);
      return (JSON.parse(res.stdout) as { apiKey: string }).apiKey;
    },
    api: (method, path, body, apiKey = suite.tenant.apiKey) => hubJson(method, `${suite.stack.url}${path}`, apiKey, body),
  };
  return suite;
}
