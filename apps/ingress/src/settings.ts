import type { DeploymentOidcSettings } from '@hub/auth';
import { IngressConfig, parseConfig, serviceSettings, type ServiceSettings } from '@hub/config';

/** The settings ingress code reads; derived once from the parsed environment. */
export interface IngressSettings extends ServiceSettings {
  port: number;
  host: string;
  /** `HUB_READ_DATABASE_URL`: the standby the lag-tolerant read-model lists read from; unset, the main pool. */
  readDatabaseUrl?: string;
  maxFrameBytes: number;
  maxBodyBytes: number;
  /** Node's `headersTimeout` / `requestTimeout` for the HTTP server (`HUB_HTTP_*_TIMEOUT_MS`). */
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
  commandTimeoutMs: number;
  /** How long an ACP client has to answer a permission request (`HUB_ACP_PERMISSION_TIMEOUT_MS`). */
  acpPermissionTimeoutMs: number;
  /** Open WebSockets per process (`HUB_WS_MAX_SOCKETS`). */
  wsMaxSockets: number;
  /** Unsent bytes a WebSocket may hold before it is closed as a slow consumer (`HUB_WS_MAX_BUFFERED_BYTES`). */
  wsMaxBufferedBytes: number;
  /** How often open sockets re-check their key (`HUB_KEY_RECHECK_MS`). */
  keyRecheckMs: number;
  /** How long a socket's place in its tenant's open-socket count lasts unrenewed (`HUB_SOCKET_LEASE_MS`). */
  socketLeaseMs: number;
  /** How often this ingress looks for due schedule ticks (`HUB_SCHEDULE_POLL_MS`); 0: it runs none. */
  schedulePollMs: number;
  /** `HUB_OPERATOR_KEY`: the deployment operator's key for the tenant admin routes; unset, they answer 404. */
  operatorKey?: string;
  /** Webhook endpoints (issue 28): the SSRF guard's allowed ranges and a rotation's default overlap. */
  webhooks: { allowedNetworks?: string; rotationOverlapMs: number };
  /** Sign-in with OpenID Connect (issue 24): the deployment's provider (`HUB_OIDC_*`) and how long a console session lasts. */
  oidc: DeploymentOidcSettings & { sessionSeconds: number };
}

export function loadIngressSettings(env?: NodeJS.ProcessEnv): IngressSettings {
  const c = parseConfig(IngressConfig, env);
  return {
    ...serviceSettings(c),
    port: c.PORT,
    host: c.HOST,
    readDatabaseUrl: c.HUB_READ_DATABASE_URL,
    maxFrameBytes: c.HUB_MAX_FRAME_BYTES,
    maxBodyBytes: c.HUB_MAX_BODY_BYTES,
    httpHeadersTimeoutMs: c.HUB_HTTP_HEADERS_TIMEOUT_MS,
    // Node requires headersTimeout <= requestTimeout: the whole request includes its headers.
    httpRequestTimeoutMs: Math.max(c.HUB_HTTP_REQUEST_TIMEOUT_MS, c.HUB_HTTP_HEADERS_TIMEOUT_MS),
    commandTimeoutMs: c.HUB_COMMAND_TIMEOUT_MS,
    acpPermissionTimeoutMs: c.HUB_ACP_PERMISSION_TIMEOUT_MS,
    wsMaxSockets: c.HUB_WS_MAX_SOCKETS,
    wsMaxBufferedBytes: c.HUB_WS_MAX_BUFFERED_BYTES,
    keyRecheckMs: c.HUB_KEY_RECHECK_MS,
    socketLeaseMs: c.HUB_SOCKET_LEASE_MS,
    schedulePollMs: c.HUB_SCHEDULE_POLL_MS,
    operatorKey: c.HUB_OPERATOR_KEY,
    webhooks: { allowedNetworks: c.HUB_WEBHOOK_ALLOWED_NETWORKS, rotationOverlapMs: c.HUB_WEBHOOK_ROTATION_OVERLAP_MS },
    oidc: {
      issuer: c.HUB_OIDC_ISSUER,
      tenantId: c.HUB_OIDC_TENANT,
      clientId: c.HUB_OIDC_CLIENT_ID,
      clientSecret: c.HUB_OIDC_CLIENT_SECRET,
      audience: c.HUB_OIDC_AUDIENCE,
      name: c.HUB_OIDC_NAME,
      scopes: c.HUB_OIDC_SCOPES,
      groupsClaim: c.HUB_OIDC_GROUPS_CLAIM,
      groupRoles: c.HUB_OIDC_GROUP_ROLES,
      allowedDomains: c.HUB_OIDC_ALLOWED_DOMAINS,
      apiKeyConsole: c.HUB_OIDC_API_KEY_CONSOLE,
      sessionSeconds: c.HUB_OIDC_SESSION_SECONDS,
    },
  };
}
