// Harn session-update extensions go only to clients that asked for them: a strict ACP client
// (the SDK's stable parser, for one) rejects an unknown `sessionUpdate` as invalid params. The
// Harn spec advertises the agent's list but defines no client opt-in, so the hub's is
// `clientCapabilities._meta.harn.sessionUpdateExtensions` at `initialize`: `true` (every
// extension the hub emits) or a list of variant names.

/** The ACP variants of `session/update` (everything else is a Harn extension). */
export const STANDARD_SESSION_UPDATES: ReadonlySet<string> = new Set([
  'user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk', 'tool_call', 'tool_call_update', 'plan',
  'available_commands_update', 'current_mode_update', 'config_option_update', 'session_info_update',
]);

/** Which extension variants a client accepts: `'all'` or a set of names (empty: standard only). */
export type ExtensionOptIn = 'all' | ReadonlySet<string>;

/** The opt-in a client declared in its `initialize` `clientCapabilities`. */
export function extensionOptIn(clientCapabilities: unknown): ExtensionOptIn {
  const value = field(field(field(clientCapabilities, '_meta'), 'harn'), 'sessionUpdateExtensions');
  if (value === true) return 'all';
  if (Array.isArray(value)) return new Set(value.filter((v): v is string => typeof v === 'string'));
  return new Set();
}

/** Whether a `session/update` of this kind may go to a client with this opt-in. */
export function acceptsUpdate(optIn: ExtensionOptIn, sessionUpdate: string): boolean {
  return STANDARD_SESSION_UPDATES.has(sessionUpdate) || optIn === 'all' || optIn.has(sessionUpdate);
}

function field(o: unknown, key: string): unknown {
  return typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined;
}
