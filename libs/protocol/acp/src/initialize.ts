import { HARN_CONTENT_EXTENSION_FIELDS, HARN_SESSION_UPDATE_EXTENSIONS, HARN_TOOL_LIFECYCLE_FIELDS } from './encode';
import { EXTENSIONS_BY_METHOD } from './extensions';
import { ACP_PROTOCOL_VERSION } from './schema';

/**
 * The `initialize` result: ACP capabilities plus, under `_meta.harn`, what the hub emits and which
 * extension methods it serves. `mcpHttp`: whether this hub takes any http MCP server at all (the
 * operator allows some URLs); stdio servers are always supported, each checked against its list.
 */
export function initializeResult(opts: { version: string; extensionMethods: readonly string[]; mcpHttp?: boolean }) {
  return {
    protocolVersion: ACP_PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: opts.mcpHttp ?? false, sse: false },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
      _meta: {
        harn: {
          sessionUpdateExtensions: [...HARN_SESSION_UPDATE_EXTENSIONS],
          // Which extensions a client gets: those of a Harn method once it calls it; the rest
          // only with `clientCapabilities._meta.harn.sessionUpdateExtensions` (see extensions.ts).
          sessionUpdateExtensionDelivery: { byMethod: { ...EXTENSIONS_BY_METHOD }, optInCapability: 'clientCapabilities._meta.harn.sessionUpdateExtensions' },
          toolLifecycleExtensionFields: [...HARN_TOOL_LIFECYCLE_FIELDS],
          contentExtensionFields: [...HARN_CONTENT_EXTENSION_FIELDS],
          extensionMethods: [...opts.extensionMethods],
        },
      },
    },
    agentInfo: { name: 'harness-hub', title: 'Harness Hub', version: opts.version },
    authMethods: [
      {
        id: 'hub-api-key',
        name: 'Hub API key',
        description: 'The connection is already authenticated with a hub API key (Authorization header / HUB_API_KEY).',
      },
    ],
  };
}
