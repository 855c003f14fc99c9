import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable, Writable } from 'node:stream';
import Ajv2020 from 'ajv/dist/2020';
import WebSocket from 'ws';
import { acpValidatorsFrom } from '@hub/protocol-acp';
import { HubProcess, REPO_ROOT } from '@hub/testing';

// Test clients built on the official SDK's client side (`@agentclientprotocol/sdk` 2.4.0, whose
// `client().connect(stream)` replaced `ClientSideConnection`). The SDK is ESM-only; Jest runs
// CommonJS, so it is loaded with Node's own require (require(esm), Node ≥ 20.19).

type Sdk = typeof import('@agentclientprotocol/sdk');
type Stream = import('@agentclientprotocol/sdk').Stream;
type Notification = import('@agentclientprotocol/sdk').SessionNotification;
type PermissionParams = import('@agentclientprotocol/sdk').RequestPermissionRequest;
type PermissionAnswer = import('@agentclientprotocol/sdk').RequestPermissionResponse;

// Jest intercepts `require` and `createRequire`; Node's own loader (`Module._load`, by absolute
// path because it resolves from no parent) is not intercepted and supports require(esm).
const nodeModule = process.getBuiltinModule('node:module') as unknown as { _load(request: string, parent: null, isMain: boolean): unknown };
const SDK_DIST = path.join(REPO_ROOT, 'node_modules/@agentclientprotocol/sdk/dist');
export const sdk = nodeModule._load(path.join(SDK_DIST, 'v1/stable/acp.js'), null, false) as Sdk;
const wsClient = nodeModule._load(path.join(SDK_DIST, 'transports/ws-stream.js'), null, false) as {
  createWebSocketStream(url: string, o: { headers: Record<string, string>; WebSocket: unknown }): Stream;
};

/** The console the SDK logs to (Node's own, not Jest's): it reports updates it rejects there. */
export const sdkConsole = nodeModule._load('console', null, false) as Console;

/** What the client answers to `session/request_permission` (a promise: it may hold the answer). */
export type PermissionPolicy = (p: PermissionParams) => Promise<PermissionAnswer>;

export class AcpSdkClient {
  readonly updates: Notification[] = [];
  readonly permissionRequests: PermissionParams[] = [];
  policy: PermissionPolicy = async () => ({ outcome: { outcome: 'selected', optionId: 'allow-once' } });
  private conn!: ReturnType<ReturnType<Sdk['client']>['connect']>;
  /** The spawned `bin/hub acp` (stdio clients); its stderr is kept for diagnosis. */
  process?: HubProcess;

  private constructor(stream: Stream) {
    const app = sdk
      .client({ name: 'hub-e2e' })
      .onNotification('session/update', ({ params }) => void this.updates.push(params))
      .onRequest('session/request_permission', ({ params }) => {
        this.permissionRequests.push(params);
        return this.policy(params);
      });
    this.conn = app.connect(stream);
  }

  /** Over `WS /v1/acp`, with the SDK's WebSocket transport. */
  static ws(hubUrl: string, apiKey: string, headers: Record<string, string> = {}): AcpSdkClient {
    const url = `${hubUrl.replace(/^http/, 'ws')}/v1/acp`;
    return new AcpSdkClient(wsClient.createWebSocketStream(url, { headers: { ...headers, Authorization: `Bearer ${apiKey}` }, WebSocket }));
  }

  /** Over stdio of a spawned `bin/hub acp`, as an editor runs it. */
  static stdio(hubUrl: string, apiKey: string): AcpSdkClient {
    const p = new HubProcess(['acp'], { HUB_URL: hubUrl, HUB_API_KEY: apiKey });
    const { stdin, stdout } = p.child;
    if (!stdin || !stdout) throw new Error('bin/hub acp has no stdio pipes');
    const c = new AcpSdkClient(sdk.ndJsonStream(Writable.toWeb(stdin) as WritableStream<Uint8Array>, Readable.toWeb(stdout) as ReadableStream<Uint8Array>));
    c.process = p;
    return c;
  }

  request<T = Record<string, unknown>>(method: string, params: unknown): Promise<T> {
    return this.conn.agent.request<T>(method, params);
  }

  notify(method: string, params: unknown): Promise<void> {
    return this.conn.agent.notify(method, params);
  }

  kinds(sessionId: string): string[] {
    return this.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update.sessionUpdate);
  }

  async waitFor(what: string, pred: () => boolean, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!pred()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; updates: ${JSON.stringify(this.updates.map((u) => u.update.sessionUpdate))}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async close(): Promise<void> {
    this.conn.close();
    if (this.process && this.process.child.exitCode === null) {
      this.process.child.stdin?.end();
      await this.process.exited;
    }
  }
}

const SHARED = path.resolve(REPO_ROOT, '../shared/fixtures');
const readJson = (p: string) => JSON.parse(fs.readFileSync(path.join(SHARED, p), 'utf8')) as object;

/** ACP v0.12.2 schema + Harn profile checks for updates the hub emitted. */
export const validators = () =>
  acpValidatorsFrom(
    readJson('acp-upstream/schema-v0.12.2/schema.json'),
    readJson('harn-acp/conformance/acp-session-update.schema.json'),
    new Ajv2020({ strict: false, allErrors: true, validateFormats: false }),
    new Ajv2020({ strict: false, allErrors: true, validateFormats: false }),
  );
