// The official ACP SDK (`@agentclientprotocol/sdk` 2.4.0) is ESM-only and this code is compiled
// to CommonJS. Node ≥ 20.19 can `require` ESM, but Jest replaces `require` with a loader that
// cannot; Node's own `Module._load` (reached through `process.getBuiltinModule`) is not
// intercepted, so the SDK is loaded through it, by absolute path, in the worker and in tests alike.

export type AcpSdk = typeof import('@agentclientprotocol/sdk');

let loaded: AcpSdk | undefined;

export function loadAcpSdk(): AcpSdk {
  if (loaded) return loaded;
  const nodeModule = process.getBuiltinModule('node:module') as unknown as {
    _load(request: string, parent: null, isMain: boolean): unknown;
    createRequire(from: string): { resolve(id: string): string };
  };
  const entry = nodeModule.createRequire(__filename).resolve('@agentclientprotocol/sdk');
  loaded = nodeModule._load(entry, null, false) as AcpSdk;
  return loaded;
}
