// Generated from the hub's /openapi.json by apps/console/scripts/api-types.cjs. Do not edit: run it.

export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: Postgres and Redis answer; no key */
        get: operations["HealthController_health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process serves HTTP, whatever the stores do; no key */
        get: operations["HealthController_live"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (text exposition format); no key */
        get: operations["MetricsController_metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/a2a": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** One A2A JSON-RPC request (SendMessage, SendStreamingMessage, GetTask, CancelTask, SubscribeToTask, ListTasks...) */
        post: operations["A2aController_rpc"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/a2a/.well-known/agent-card.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The A2A agent card: the JSON-RPC interface (A2A 1.0), bearer security, a skill per tool of the agent */
        get: operations["A2aController_card"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/idp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This tenant's identity provider (admin), without its client secret; provider null when it has none */
        get: operations["OidcAdminController_get"];
        /** Set this tenant's identity provider (admin): {issuer, clientId, clientSecret?, audience?, name?, scopes?, groupsClaim?, groupRoles, allowedDomains?, apiKeyConsole?} */
        put: operations["OidcAdminController_set"];
        post?: never;
        /** Remove this tenant's own identity provider (admin); people can no longer sign in with it */
        delete: operations["OidcAdminController_remove"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/idp/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Signed-in people's console sessions of this tenant (admin), newest first; a person's with ?sub= */
        get: operations["OidcAdminController_listSessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/idp/sessions/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End a person's console sessions ({sub}) or everyone's ({all: true}) (admin): refused from their next request on */
        post: operations["OidcAdminController_revokeSessions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This tenant's keys without secrets: prefix, name, role, created, expires, last used, revoked (admin) */
        get: operations["AdminController_listKeys"];
        put?: never;
        /** Create a key of this tenant (admin): {name, role, expiresAt?}; the key is shown once */
        post: operations["AdminController_createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/keys/{prefix}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a key of this tenant by its prefix (admin); its open sockets and event streams close within seconds */
        delete: operations["AdminController_revokeKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This tenant's limits (admin): {limits: {turnsPerMinute, concurrentTurns, tokensPerDay, sessions, openSockets, eventBytesPerDay, retentionDays}}, each a number or null */
        get: operations["AdminController_getLimits"];
        /** Set this tenant's limits (admin), the whole set; null or absent: no limit. In force on every ingress within 2 s */
        put: operations["AdminController_setLimits"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/policy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's approval policy in force and its version (0: the built-in one, each tool's own default) */
        get: operations["PolicyController_get"];
        /** Replace the tenant's approval policy (admin): recorded as the next version; an invalid one is refused (400, `path` names the field) and nothing changes */
        put: operations["PolicyController_set"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/policy/explain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Which rule of the policy in force decides a tool call, and why: {tool, input, executor?, riskTier?, builtin?} */
        post: operations["PolicyController_explain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List tenants (deployment operator key) */
        get: operations["AdminController_listTenants"];
        put?: never;
        /** Create a tenant (deployment operator key): {name}; returns its first admin key, shown once */
        post: operations["AdminController_createTenant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ag-ui": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** One AG-UI run: a RunAgentInput, answered by its events (SSE); Last-Event-ID resumes after a cursor */
        post: operations["AgUiController_run"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approval-links/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Decide an approval through its link (no API key): {decision: approved|denied, reason?}; once only */
        post: operations["ApprovalLinksController_decide"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Approvals of the tenant: ?status=pending|resolved */
        get: operations["ApprovalsController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Live approval feed (Server-Sent Events): requested and resolved approvals as they happen */
        get: operations["ApprovalsController_stream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who is signed in: the actor (a key or a person), the role, and for a console session its CSRF token */
        get: operations["OidcAuthController_me"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/oidc/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where the identity provider sends the browser back (public): makes the session cookie, or shows why not */
        get: operations["OidcAuthController_callback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/oidc/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Start signing in with the tenant's identity provider (public): redirects to the provider */
        get: operations["OidcAuthController_login"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/oidc/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign out of the console session (cookie and CSRF token): {logoutUrl} ends it at the provider too, when it supports that */
        post: operations["OidcAuthController_logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/oidc/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** How the console offers sign-in for a tenant (public): {oidc: {name} | null, apiKeyConsole} */
        get: operations["OidcAuthController_options"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/oidc/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The browser's console session, if it has one (public, always 200): {signedIn, role, actor, csrfToken} or {signedIn: false, reason} */
        get: operations["OidcAuthController_session"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openenv/{env}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The environment's configuration (secrets as hub-secret references) */
        get: operations["OpenEnvController_config"];
        /** Configure an environment (allowlisted MCP servers, harness, rubric) for this tenant */
        put: operations["OpenEnvController_configure"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openenv/{env}/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The environment's health (OpenEnv) */
        get: operations["OpenEnvController_health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openenv/{env}/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** MCP over HTTP into the episode's tools (JSON-RPC) */
        post: operations["OpenEnvController_mcpRequest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openenv/{env}/metadata": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The environment's metadata (OpenEnv) */
        get: operations["OpenEnvController_metadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openenv/{env}/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start an episode (OpenEnv reset); returns the first observation */
        post: operations["OpenEnvController_reset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openenv/{env}/schema": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Action and observation JSON Schemas (OpenEnv) */
        get: operations["OpenEnvController_schema"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openenv/{env}/state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The episode's state */
        get: operations["OpenEnvController_state"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openenv/{env}/step": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** One step of an episode (OpenEnv step): an action in, observation, reward and done out */
        post: operations["OpenEnvController_step"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openenv/{env}/trajectory": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An episode's trajectory (steps, rewards, model requests) */
        get: operations["OpenEnvController_trajectory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/openharness": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** One OpenHarness v1 request (collect, resolve, cancel...) */
        post: operations["OpenHarnessController_handle"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This tenant's schedules with their last run and next fire time */
        get: operations["SchedulesController_list"];
        put?: never;
        /** Create a schedule; with a clientKey, a repeat updates the schedule of that key (200) instead of creating another (201) */
        post: operations["SchedulesController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One schedule */
        get: operations["SchedulesController_get"];
        /** Replace a schedule's spec (timing changes apply from now) */
        put: operations["SchedulesController_update"];
        post?: never;
        /** Delete a schedule (its ticks and the sessions they made stay) */
        delete: operations["SchedulesController_remove"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{id}/backfill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run the ticks of a past range that were never decided: {from, to} (ISO times; at most 1,000 ticks) */
        post: operations["SchedulesController_backfill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{id}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pause a schedule, with a note saying why: {note?} */
        post: operations["SchedulesController_pause"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{id}/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The next N fire times (?count=N, 1-100, default 10; ?after=ISO time) */
        get: operations["SchedulesController_preview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Resume a paused schedule from now (ticks of the pause are not run): {note?} */
        post: operations["SchedulesController_resume"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{id}/ticks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The schedule's decided ticks, newest first: scheduled and actual start, outcome, the session it made (?limit=N) */
        get: operations["SchedulesController_ticks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{id}/trigger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run the schedule once now (paused or not) */
        post: operations["SchedulesController_trigger"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's sessions (read model): ?status=&protocol=&limit=&cursor= */
        get: operations["SessionListController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Erase a session (admin): events, snapshots and read-model rows; a SessionErased tombstone records who and what */
        delete: operations["SessionsController_erase"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/approvals/{approvalId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Answer an approval: approve or deny, with an optional reason; the first answer wins, or the approval that reaches its quorum */
        post: operations["SessionsController_resolve"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page of a session's events (?after=&limit=) */
        get: operations["SessionsController_page"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The whole session as NDJSON (streamed) */
        get: operations["SessionsController_export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/fork": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Fork a session at a cursor where it is at rest: {"at"?: cursor, "sessionId"?: new id} */
        post: operations["LineageController_fork"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/redrive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Re-drive a session's user turns in a new session: {"model"? | "harness"?, "tools": "recorded"|"live", "sessionId"?} */
        post: operations["LineageController_redrive"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/redrive-report": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Compare a re-driven session with its source, turn by turn */
        get: operations["LineageController_report"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The session's current state (the transport's projection) */
        get: operations["SessionsController_state"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/turns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A session's turns (read model) */
        get: operations["SessionListController_turns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Live sessions feed (Server-Sent Events): each of the tenant's sessions as it changes */
        get: operations["SessionListController_stream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's usage per key and day (read model): ?from=&to=&key= */
        get: operations["UsageController_usage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's webhook settings: {approvalLinks} */
        get: operations["WebhookSettingsController_get"];
        /** Turn approval links on or off (admin, operator): {approvalLinks}; off, links already sent are refused too */
        put: operations["WebhookSettingsController_set"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's endpoints, without secrets */
        get: operations["WebhooksController_list"];
        put?: never;
        /** Make an endpoint (admin, operator): {url, events, description?}; answers its id and its whsec_ secret, shown once */
        post: operations["WebhooksController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One endpoint, without its secret: enabled, why it was disabled, failing since */
        get: operations["WebhooksController_get"];
        put?: never;
        post?: never;
        /** Remove an endpoint and its delivery log (admin, operator) */
        delete: operations["WebhooksController_remove"];
        options?: never;
        head?: never;
        /** Change an endpoint (admin, operator): {url?, events?, description?, enabled?}; enabling clears why it was disabled */
        patch: operations["WebhooksController_update"];
        trace?: never;
    };
    "/v1/webhooks/{id}/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The endpoint's delivery log, newest first: each attempt's outcome, response status, latency and next attempt */
        get: operations["WebhooksController_attempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The endpoint's messages, newest first: status (pending, succeeded, failed), attempts, next attempt, payload */
        get: operations["WebhooksController_messages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Deliver again (admin, operator): {messageId} one message, or {since} every message made since a time; same webhook-id, fresh schedule */
        post: operations["WebhooksController_redeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate the secret (admin, operator): {overlapSeconds?}; the new secret is shown once, the old one signs too until the overlap ends */
        post: operations["WebhooksController_rotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a webhook.test message to the endpoint (admin, operator); answers its webhook-id */
        post: operations["WebhooksController_test"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/zene": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** One Zene host-protocol request: one bridge-compatible JSON reply, or NDJSON protocol lines with ?mode=protocol */
        post: operations["ZeneController_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/zene/ping": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Zene ping */
        get: operations["ZeneController_ping"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Actor: {
            email?: string;
            groups?: string[];
            id: string;
            iss?: string;
            name?: string;
            role?: string;
            sub?: string;
            /** @enum {string} */
            type: "api_key" | "person" | "worker" | "system" | "approval_link";
        };
        ApprovalAnswer: {
            approvalId: string;
            /** @description With `pending`: distinct approvals so far, this one included */
            approvals?: number;
            /**
             * @description The answer sent
             * @enum {string}
             */
            decision: "approved" | "denied";
            /** @description With `pending`: how many distinct approvals the call needs */
            required?: number;
            /**
             * @description The approval's status after this answer: `pending` when it was an approval short of the quorum (the call still waits)
             * @enum {string}
             */
            status: "pending" | "approved" | "denied";
        };
        ApprovalList: {
            approvals: components["schemas"]["ApprovalView"][];
            /** @description Pass back as `cursor` for the next page; null on the last */
            nextCursor: string | null;
        };
        ApprovalPolicy: {
            /**
             * @default {
             *       "outcome": "builtin"
             *     }
             */
            default: {
                approval?: {
                    approvers?: {
                        groups?: string[];
                        keys?: string[];
                        roles?: ("admin" | "operator" | "approver" | "viewer" | "client")[];
                    };
                    deadline?: {
                        afterSeconds: number;
                        /** @default deny */
                        onExpiry: "deny" | "allow" | {
                            escalate: {
                                afterSeconds?: number;
                                approvers: {
                                    groups?: string[];
                                    keys?: string[];
                                    roles?: ("admin" | "operator" | "approver" | "viewer" | "client")[];
                                };
                                /** @default 1 */
                                required: number;
                            };
                        };
                    };
                    /** @default true */
                    requesterMayApprove: boolean;
                    /** @default 1 */
                    required: number;
                };
                /** @enum {string} */
                outcome: "allow" | "ask" | "deny" | "builtin";
            };
            /** @default [] */
            rules: {
                approval?: {
                    approvers?: {
                        groups?: string[];
                        keys?: string[];
                        roles?: ("admin" | "operator" | "approver" | "viewer" | "client")[];
                    };
                    deadline?: {
                        afterSeconds: number;
                        /** @default deny */
                        onExpiry: "deny" | "allow" | {
                            escalate: {
                                afterSeconds?: number;
                                approvers: {
                                    groups?: string[];
                                    keys?: string[];
                                    roles?: ("admin" | "operator" | "approver" | "viewer" | "client")[];
                                };
                                /** @default 1 */
                                required: number;
                            };
                        };
                    };
                    /** @default true */
                    requesterMayApprove: boolean;
                    /** @default 1 */
                    required: number;
                };
                description?: string;
                id?: string;
                /** @default {} */
                match: {
                    args?: ({
                        arg: string;
                        glob: string | string[];
                        /** @enum {string} */
                        kind: "path";
                    } | {
                        arg: string;
                        /** @enum {string} */
                        kind: "path";
                        /** @enum {boolean} */
                        outsideWorkspace: true;
                    } | {
                        arg: string;
                        flags?: string;
                        /** @enum {string} */
                        kind: "regex";
                        pattern: string;
                    } | {
                        arg: string;
                        /** @enum {string} */
                        kind: "number";
                        max?: number;
                        min?: number;
                    })[];
                    executor?: string | string[];
                    risk?: ("low" | "medium" | "high")[];
                    tool?: string | string[];
                };
                /** @enum {string} */
                outcome: "allow" | "ask" | "deny";
            }[];
            /**
             * @default tighten-only
             * @enum {string}
             */
            sessionOverrides: "tighten-only" | "any";
        };
        ApprovalView: {
            approvalId: string;
            /** @description The tool's input as the model gave it */
            arguments: unknown;
            /** @description ISO 8601 time */
            deadlineAt: string | null;
            /** @description Global position of the event that last changed it (the live feed cursor) */
            position: number;
            /** @description For an approval that needs several approvers, named ones, or not the requester (ADR 0048); null when the first answer decides */
            quorum: {
                /** @description Distinct approvals so far */
                approvals: number;
                approvers: {
                    groups?: string[];
                    keys?: string[];
                    roles?: string[];
                } | null;
                requesterMayApprove: boolean;
                /** @description Distinct approvals it needs */
                required: number;
                votes: {
                    /** @description ISO 8601 time */
                    at: string;
                    by: components["schemas"]["Actor"];
                    reason: string | null;
                    /** @enum {string} */
                    via: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                }[];
            } | null;
            reason: string;
            /** @description ISO 8601 time */
            requestedAt: string;
            /** @enum {string|null} */
            requestedVia: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli" | null;
            resolution: {
                /** @description ISO 8601 time */
                at: string;
                by: components["schemas"]["Actor"] | null;
                /** @enum {string} */
                decision: "approved" | "denied" | "abandoned" | "escalated";
                reason: string | null;
                /** @enum {string|null} */
                via: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli" | null;
            } | null;
            riskTier: string;
            sessionId: string;
            /** @enum {string} */
            status: "pending" | "resolved";
            toolCallId: string;
            toolName: string;
            turnId: string;
        };
        EventPage: {
            events: components["schemas"]["RecordedEvent"][];
            /** @description The `after` of the next page; null at the end */
            next: number | null;
            sessionId: string;
        };
        FireTimes: {
            fireTimes: string[];
        };
        HarnessState: {
            error?: string;
            messages: {
                content: string;
                id: string;
                /** @enum {string} */
                role: "user" | "assistant";
                /** @enum {string} */
                status: "pending" | "streaming" | "complete" | "error";
                /** @enum {string} */
                stopReason?: "cancelled" | "failed";
                toolCalls?: {
                    approval?: {
                        id: string;
                        reason: string;
                        /** @enum {string} */
                        riskTier: "low" | "medium" | "high";
                        /** @enum {string} */
                        status: "pending" | "approved" | "denied";
                    };
                    id: string;
                    name: string;
                    /** @enum {string} */
                    status: "running" | "complete" | "error";
                }[];
                turnId?: string;
            }[];
            queued?: {
                /** @enum {string} */
                reason: "capacity";
                since: string;
                turnId: string;
            } | null;
            /** @enum {string} */
            status: "idle" | "running" | "error";
        };
        PolicyExplanation: {
            approval: {
                approvers?: unknown;
                deadline?: unknown;
                requesterMayApprove: boolean;
                required: number;
            } | null;
            /** @enum {string} */
            outcome: "allow" | "ask" | "deny";
            reason: string;
            rule: {
                id: string;
                /** @description null: the default */
                index: number | null;
            };
            trace: {
                id: string;
                index: number;
                matched: boolean;
                why: string;
            }[];
            /** @description The policy version explained */
            version: number;
        };
        PolicyView: {
            policy: components["schemas"]["ApprovalPolicy"];
            /** @description ISO 8601 time */
            setAt: string | null;
            setBy: components["schemas"]["Actor"] | null;
            /** @description 0: no policy set yet (every tool keeps its own default) */
            version: number;
        };
        /** @description RFC 9457 problem+json */
        Problem: {
            /** @description One of the documented error codes */
            code: string;
            detail: string;
            status: number;
            title: string;
            type: string;
        } & {
            [key: string]: unknown;
        };
        RecordedEvent: {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                /** @enum {string} */
                openedVia: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                sessionId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "SessionOpened";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                /** @enum {string} */
                busyPolicy: "enqueue" | "reject" | "interrupt";
                context: {
                    [key: string]: unknown;
                };
                prompt: string;
                turnId: string;
                userMessageId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "TurnRequested";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "TurnStarted";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                messageId: string;
                /** @enum {string} */
                role: "assistant";
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "MessageStarted";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                callId: string;
                messageCount: number;
                model: string;
                provider: string;
                step: number;
                toolNames: string[];
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "ModelCallStarted";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                callId: string;
                messageId: string;
                offset: number;
                text: string;
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "TextDelta";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                callId: string;
                messageId: string;
                offset: number;
                text: string;
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "ThoughtDelta";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                callId: string;
                /** @enum {string} */
                finishReason: "stop" | "tool_calls" | "length" | "content_filter";
                step: number;
                text: string;
                toolCalls: {
                    input: unknown;
                    name: string;
                    toolCallId: string;
                }[];
                turnId: string;
                usage: components["schemas"]["Usage"];
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "ModelCallCompleted";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                executor: string;
                input: unknown;
                messageId: string;
                name: string;
                /** @enum {string} */
                policy: "allow" | "ask" | "deny";
                policyRule?: {
                    rule: string;
                    ruleIndex: number | null;
                    version: number;
                };
                toolCallId: string;
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "ToolCallStarted";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                message: string;
                toolCallId: string;
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "ToolCallUpdated";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                durationMs: number;
                output: string;
                /** @enum {string} */
                status: "complete" | "error" | "denied";
                toolCallId: string;
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "ToolCallCompleted";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                approvalId: string;
                deadlineAt: string | null;
                escalatedFrom?: string;
                input: unknown;
                onExpiry?: "allow" | {
                    escalate: {
                        afterSeconds?: number;
                        approvers: {
                            groups?: string[];
                            keys?: string[];
                            roles?: string[];
                        };
                        required: number;
                    };
                };
                policy?: {
                    rule: string;
                    ruleIndex: number | null;
                    version: number;
                };
                quorum?: {
                    approvers?: {
                        groups?: string[];
                        keys?: string[];
                        roles?: string[];
                    };
                    requester: string | null;
                    requesterMayApprove: boolean;
                    required: number;
                };
                reason: string;
                /** @enum {string} */
                riskTier: "low" | "medium" | "high";
                toolCallId: string;
                toolName: string;
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "ApprovalRequested";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                approvalId: string;
                approvals: number;
                by: components["schemas"]["Actor"];
                /** @enum {string} */
                decision: "approved";
                reason: string | null;
                required: number;
                toolCallId: string;
                turnId: string;
                /** @enum {string} */
                via: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "ApprovalVoted";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                approvalId: string;
                by: components["schemas"]["Actor"];
                /** @enum {string} */
                decision: "approved" | "denied";
                input?: {
                    [key: string]: unknown;
                };
                reason: string | null;
                toolCallId: string;
                turnId: string;
                /** @enum {string} */
                via: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "ApprovalResolved";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                messageId: string;
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "MessageCompleted";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                /** @enum {boolean} */
                done?: true;
                /** @enum {string} */
                stopReason: "end_turn" | "max_steps";
                text: string;
                turnId: string;
                usage: components["schemas"]["Usage"];
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "TurnCompleted";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                code: string;
                message: string;
                retryable: boolean;
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "TurnFailed";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                by: components["schemas"]["Actor"];
                /** @enum {string} */
                reason: "user" | "interrupted" | "timeout";
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "TurnCancelled";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                details: {
                    [key: string]: unknown;
                };
                reward: number;
                rubric: string;
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "RewardComputed";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                env: string;
                episodeId: string;
                seed: number | null;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "EpisodeReset";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                beforeStep: number;
                fromTurnId: string;
                messageId: string;
                text: string;
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "UserMessageInjected";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                body: string;
                dedupeKey: string | null;
                meta: {
                    [key: string]: unknown;
                };
                /** @enum {string} */
                mode: "interrupt_immediate" | "finish_step" | "audit_only";
                preserveOnCompact: boolean;
                /** @enum {string|null} */
                propagate: "all" | "session" | "none" | null;
                reminderId: string;
                /** @enum {string} */
                roleHint: "system" | "developer" | "user_block" | "ephemeral_cache";
                source: string;
                tags: string[];
                ttlTurns: number | null;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "ReminderQueued";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                reminderId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "ReminderRevoked";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                beforeStep: number | null;
                reminderId: string;
                /** @enum {string|null} */
                renderedRole: "system" | null;
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "ReminderEmitted";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                copiedEvents: number;
                parentCursor: number;
                parentSessionId: string;
                parentStreamPosition: number;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "SessionForked";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                sourceCursor: number;
                sourceSessionId: string;
                target: ({
                    model: string;
                } | {
                    harness: {
                        [key: string]: unknown;
                    };
                }) | null;
                /** @enum {string} */
                tools: "recorded" | "live";
                turnIds: string[];
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "SessionRedriven";
        } | {
            /** @description ISO 8601 time */
            createdAt: string;
            data: {
                /** @enum {string} */
                reason: "capacity";
                since: string;
                turnId: string;
            };
            eventId: string;
            /** @description The cursor every transport frame carries */
            globalPosition: number;
            metadata: {
                actor?: components["schemas"]["Actor"];
                causationId?: string;
                correlationId: string;
                /** @enum {string} */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                traceparent?: string;
                tracestate?: string;
            } & {
                [key: string]: unknown;
            };
            streamId: string;
            streamPosition: number;
            tenantId: string;
            /** @enum {string} */
            type: "TurnQueued";
        };
        ScheduleList: {
            schedules: components["schemas"]["ScheduleView"][];
        };
        ScheduleTickList: {
            ticks: {
                /** @enum {string} */
                outcome: "pending" | "started" | "buffered" | "skipped" | "missed" | "refused";
                reason: string | null;
                /** @description ISO 8601 time */
                scheduledAt: string;
                /** @description The session the tick ran on (or would have) */
                sessionId: string | null;
                /** @enum {string} */
                source: "schedule" | "trigger" | "backfill";
                /** @description When the turn was actually submitted */
                startedAt: string | null;
                turnId: string | null;
            }[];
        };
        ScheduleView: {
            clientKey: string | null;
            /** @description ISO 8601 time */
            createdAt: string;
            createdBy: components["schemas"]["Actor"];
            id: string;
            lastRun: {
                /** @enum {string} */
                outcome: "pending" | "started" | "buffered" | "skipped" | "missed" | "refused";
                reason: string | null;
                /** @description ISO 8601 time */
                scheduledAt: string;
                /** @description The session the tick ran on (or would have) */
                sessionId: string | null;
                /** @enum {string} */
                source: "schedule" | "trigger" | "backfill";
                /** @description When the turn was actually submitted */
                startedAt: string | null;
                turnId: string | null;
            } | null;
            /** @description ISO 8601 time */
            nextRunAt: string | null;
            note: string | null;
            paused: boolean;
            spec: {
                /** @default 60000 */
                catchUpWindowMs: number;
                cron?: string;
                /**
                 * Format: date-time
                 * @default null
                 */
                endAt: string | null;
                intervalMs?: number;
                name: string;
                /** @default null */
                note: string | null;
                /**
                 * @default skip
                 * @enum {string}
                 */
                overlap: "skip" | "buffer_one" | "allow_all";
                /** @default false */
                paused: boolean;
                run: {
                    /** @default {} */
                    context: {
                        [key: string]: unknown;
                    };
                    prompt: string;
                    sessionId?: string;
                    sessionPattern?: string;
                };
                /**
                 * Format: date-time
                 * @default null
                 */
                startAt: string | null;
                /** @default UTC */
                timeZone: string;
            };
            /** @description ISO 8601 time */
            updatedAt: string;
        };
        SessionList: {
            /** @description Pass back as `cursor` for the next page; null on the last */
            nextCursor: string | null;
            sessions: components["schemas"]["SessionView"][];
        };
        SessionState: {
            /** @description Global position of the last event folded */
            cursor: number;
            state: components["schemas"]["HarnessState"];
        };
        SessionView: {
            activeTurnId: string | null;
            /** @description ISO 8601 time */
            createdAt: string;
            /** @description ISO 8601 time of its last event; one that changes nothing else here (a text delta, a tool call in progress) moves it at most once every 5 s */
            lastActivityAt: string;
            /** @description Key prefix of the API key that opened it */
            openedBy: string | null;
            /** @enum {string|null} */
            openedVia: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli" | null;
            pendingApprovals: number;
            /** @description Global position of the event that last moved `lastActivityAt` */
            position: number;
            sessionId: string;
            /** @enum {string} */
            status: "idle" | "running" | "awaiting_approval";
            title: string | null;
            turnCount: number;
            usage: components["schemas"]["Usage"];
        };
        TurnList: {
            /** @description Pass back as `cursor` for the next page; null on the last */
            nextCursor: string | null;
            sessionId: string;
            turns: components["schemas"]["TurnView"][];
        };
        TurnView: {
            durationMs: number | null;
            /** @description ISO 8601 time */
            endedAt: string | null;
            endReason: string | null;
            errorCode: string | null;
            model: string | null;
            modelCalls: number;
            provider: string | null;
            /** @description ISO 8601 time */
            requestedAt: string;
            /** @enum {string|null} */
            requestedVia: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli" | null;
            /** @description ISO 8601 time */
            startedAt: string | null;
            status: string;
            toolCalls: number;
            turnId: string;
            usage: components["schemas"]["Usage"];
        };
        Usage: {
            completionTokens: number;
            promptTokens: number;
            totalTokens: number;
        };
        UsageReport: {
            /** @description The log position the numbers include */
            asOf: number;
            days: {
                /** @description Approvals answered */
                approvals: number;
                /** @description Time the answered approvals waited, summed */
                approvalWaitMs: number;
                completionTokens: number;
                day: string;
                /** @description The key that requested the turns; null: none did (a schedule) */
                keyPrefix: string | null;
                modelCalls: number;
                promptTokens: number;
                /** @description Tool calls started, by executor */
                toolCalls: {
                    [key: string]: number;
                };
                /** @description Turns by how they ended; open: queued or running */
                turns: {
                    cancelled: number;
                    completed: number;
                    delivered: number;
                    failed: number;
                    open: number;
                };
            }[];
            /** @description First UTC day, YYYY-MM-DD */
            from: string;
            key: string | null;
            /** @description Last UTC day, YYYY-MM-DD */
            to: string;
            totals: components["schemas"]["UsageTotals"];
        };
        UsageTotals: {
            /** @description Approvals answered */
            approvals: number;
            /** @description Time the answered approvals waited, summed */
            approvalWaitMs: number;
            completionTokens: number;
            modelCalls: number;
            promptTokens: number;
            /** @description Tool calls started, by executor */
            toolCalls: {
                [key: string]: number;
            };
            /** @description Turns by how they ended; open: queued or running */
            turns: {
                cancelled: number;
                completed: number;
                delivered: number;
                failed: number;
                open: number;
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    HealthController_health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    HealthController_live: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    MetricsController_metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    A2aController_rpc: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A tenant limit is used up (JSON-RPC error -32052 (RATE_LIMITED) with HTTP 429); nothing was appended. Retry after the wait the header names. */
            429: {
                headers: {
                    /** @description seconds until the limit lets this through */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    A2aController_card: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OidcAdminController_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OidcAdminController_set: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OidcAdminController_remove: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OidcAdminController_listSessions: {
        parameters: {
            query?: {
                sub?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OidcAdminController_revokeSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    AdminController_listKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    AdminController_createKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    AdminController_revokeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                prefix: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    AdminController_getLimits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    AdminController_setLimits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description sessions running a turn at once (from the log, exactly; waiting for an approval counts); null or absent: no limit */
                    concurrentTurns?: number | null;
                    /** @description bytes of events (data + metadata as stored) the tenant's log may grow by in its current 24-hour window; null or absent: no limit */
                    eventBytesPerDay?: number | null;
                    /** @description WebSockets of every protocol open at once, across every ingress; null or absent: no limit */
                    openSockets?: number | null;
                    /** @description sessions idle longer are archived and erased by `hub retention run` (not a limit on use); null or absent: no limit */
                    retentionDays?: number | null;
                    /** @description sessions the tenant may have (erased ones do not count); null or absent: no limit */
                    sessions?: number | null;
                    /** @description model tokens the workers counted in the tenant's current 24-hour window; null or absent: no limit */
                    tokensPerDay?: number | null;
                    /** @description turns submitted over every protocol together in a rolling minute; null or absent: no limit */
                    turnsPerMinute?: number | null;
                };
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    PolicyController_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyView"];
                };
            };
        };
    };
    PolicyController_set: {
        parameters: {
            query?: {
                /** @description Refuse (409) unless the policy is still at this version */
                expectedVersion?: unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ApprovalPolicy"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyView"];
                };
            };
            /** @description The policy is invalid: problem+json with `path` (the first bad field) and `issues` (all of them) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    PolicyController_explain: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyExplanation"];
                };
            };
        };
    };
    AdminController_listTenants: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    AdminController_createTenant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    AgUiController_run: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A tenant limit is used up (problem+json `RATE_LIMITED`); nothing was appended. Retry after the wait the header names. */
            429: {
                headers: {
                    /** @description seconds until the limit lets this through */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    ApprovalLinksController_decide: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    ApprovalsController_list: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page of this list */
                cursor?: string;
                /** @description Items per page */
                limit?: number;
                /** @description Only this session's approvals */
                sessionId?: string;
                /** @description pending (the default) or resolved */
                status?: "pending" | "resolved";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalList"];
                };
            };
        };
    };
    ApprovalsController_stream: {
        parameters: {
            query?: {
                /** @description Resume after this change position (an `id:` the feed sent; `Last-Event-ID` works too); without it the feed starts with every pending approval */
                after?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `event: approval` frames whose `data` is an ApprovalView and whose `id` its position; `event: ready` once the pending ones are sent */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OidcAuthController_me: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OidcAuthController_callback: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OidcAuthController_login: {
        parameters: {
            query?: {
                /** @description A /console path to come back to */
                returnTo?: string;
                tenant?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OidcAuthController_logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OidcAuthController_options: {
        parameters: {
            query?: {
                /** @description The tenant's id; absent: the deployment-wide provider's */
                tenant?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OidcAuthController_session: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OpenEnvController_config: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                env: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OpenEnvController_configure: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                env: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OpenEnvController_health: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                env: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OpenEnvController_mcpRequest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                env: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OpenEnvController_metadata: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                env: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OpenEnvController_reset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                env: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A tenant limit is used up (OpenEnv `{"detail"}`); nothing was appended. Retry after the wait the header names. */
            429: {
                headers: {
                    /** @description seconds until the limit lets this through */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OpenEnvController_schema: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                env: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OpenEnvController_state: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                env: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OpenEnvController_step: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                env: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A tenant limit is used up (OpenEnv `{"detail"}`); nothing was appended. Retry after the wait the header names. */
            429: {
                headers: {
                    /** @description seconds until the limit lets this through */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OpenEnvController_trajectory: {
        parameters: {
            query?: {
                /** @description The episode's id; without it, the environment's latest episode */
                episode_id?: string;
            };
            header?: never;
            path: {
                env: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    OpenHarnessController_handle: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A tenant limit is used up (OpenHarness `rate_limited`, retryable, with `details.retry_after_ms`); nothing was appended. Retry after the wait the header names. */
            429: {
                headers: {
                    /** @description seconds until the limit lets this through */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    SchedulesController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleList"];
                };
            };
        };
    };
    SchedulesController_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Updated: a schedule with this clientKey existed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleView"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleView"];
                };
            };
        };
    };
    SchedulesController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleView"];
                };
            };
        };
    };
    SchedulesController_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleView"];
                };
            };
        };
    };
    SchedulesController_remove: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    SchedulesController_backfill: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    SchedulesController_pause: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleView"];
                };
            };
        };
    };
    SchedulesController_preview: {
        parameters: {
            query?: {
                /** @description ISO time; default now */
                after?: string;
                /** @description 1-100, default 10 */
                count?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FireTimes"];
                };
            };
        };
    };
    SchedulesController_resume: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleView"];
                };
            };
        };
    };
    SchedulesController_ticks: {
        parameters: {
            query?: {
                /** @description 1-1000, default 100 */
                limit?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleTickList"];
                };
            };
        };
    };
    SchedulesController_trigger: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    SessionListController_list: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page of this list */
                cursor?: string;
                /** @description Items per page */
                limit?: number;
                /** @description Only sessions opened over this protocol */
                protocol?: "transport" | "openharness" | "zene" | "openenv" | "acp" | "a2a" | "ag-ui" | "internal" | "cli";
                /** @description Only sessions in this status */
                status?: "idle" | "running" | "awaiting_approval";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionList"];
                };
            };
        };
    };
    SessionsController_erase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    SessionsController_resolve: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                approvalId: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApprovalAnswer"];
                };
            };
        };
    };
    SessionsController_page: {
        parameters: {
            query?: {
                /** @description Stream position to read after (exclusive); 0, the default, reads from the start */
                after?: number;
                /** @description Events per page */
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventPage"];
                };
            };
        };
    };
    SessionsController_export: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One stored event a line, with its hash and the previous hash (verifiable offline with `hub audit verify --file`) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    LineageController_fork: {
        parameters: {
            query?: never;
            header: {
                "idempotency-key": string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A tenant limit is used up (problem+json `RATE_LIMITED`); nothing was appended. Retry after the wait the header names. */
            429: {
                headers: {
                    /** @description seconds until the limit lets this through */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    LineageController_redrive: {
        parameters: {
            query?: never;
            header: {
                "idempotency-key": string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A tenant limit is used up (problem+json `RATE_LIMITED`); nothing was appended. Retry after the wait the header names. */
            429: {
                headers: {
                    /** @description seconds until the limit lets this through */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    LineageController_report: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    SessionsController_state: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionState"];
                };
            };
        };
    };
    SessionListController_turns: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page of this list */
                cursor?: string;
                /** @description Items per page */
                limit?: number;
                /** @description Only turns in this status */
                status?: "queued" | "running" | "completed" | "failed" | "cancelled" | "delivered";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TurnList"];
                };
            };
        };
    };
    SessionListController_stream: {
        parameters: {
            query?: {
                /** @description Resume after this session position (an `id:` the feed sent; `Last-Event-ID` works too); without it the feed starts at the newest session */
                after?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `event: ready` with the starting position, then `event: session` frames whose `data` is a SessionView and `event: erased` frames whose `data` is `{sessionId, erasedAt, position}`, each with `id` its position */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    UsageController_usage: {
        parameters: {
            query?: {
                /** @description First UTC day (YYYY-MM-DD), included; default 29 days before `to` */
                from?: string;
                /** @description Only this API key's turns (its prefix); a client key reads only its own */
                key?: string;
                /** @description Last UTC day (YYYY-MM-DD), included; default today */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageReport"];
                };
            };
        };
    };
    WebhookSettingsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhookSettingsController_set: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhooksController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhooksController_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhooksController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhooksController_remove: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhooksController_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhooksController_attempts: {
        parameters: {
            query?: {
                /** @description an ISO time: attempts started before it (the next page) */
                before?: unknown;
                /** @description 1-500, default 50 */
                limit?: unknown;
                /** @description one message's attempts */
                messageId?: unknown;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhooksController_messages: {
        parameters: {
            query?: {
                /** @description 1-500, default 50 */
                limit?: unknown;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhooksController_redeliver: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhooksController_rotate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    WebhooksController_test: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    ZeneController_post: {
        parameters: {
            query?: {
                /** @description `protocol`: stream the v1 protocol lines as NDJSON; `bridge` (the default): one JSON reply */
                mode?: "bridge" | "protocol";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A tenant limit is used up (zene `BUSY`, retryable); nothing was appended. Retry after the wait the header names. */
            429: {
                headers: {
                    /** @description seconds until the limit lets this through */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    ZeneController_ping: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
