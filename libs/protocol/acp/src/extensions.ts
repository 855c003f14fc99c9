// Harn session-update extensions go only to clients that take them: a strict ACP client (the
// SDK's stable parser, for one) rejects an unknown `sessionUpdate` as invalid params. The Harn
// spec advertises the agent's list but defines no client opt-in, so, per extension:
// - `user_message`, `reminder_emitted`, `live_session_client` answer a Harn extension method
//   (inject, remind, attach/takeover/detach/heartbeat). Only a Harn host calls those, and the spec
//   promises it the update (e.g. inject's messageId comes back as `user_message`), so calling the
//   method is the opt-in: a plain Harn host gets them without knowing anything hub-specific.
// - `progress`, `log`, `hitl_request`, `hitl_resolved` answer nothing a client asked for and
//   each repeats a standard message (the prompt's error, `session/request_permission`, the
//   `tool_call_update` that carries `_meta.harn.approval`): they need the hub's opt-in,
//   `clientCapabilities._meta.harn.sessionUpdateExtensions` at `initialize`, `true` (all) or a
//   list of variant names.

/** The ACP variants of `session/update` (everything else is a Harn extension). */
export const STANDARD_SESSION_UPDATES: ReadonlySet<string> = new Set([
  'user_message_chunk',
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
  'available_commands_update',
  'current_mode_update',
  'config_option_update',
  'session_info_update',
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

/** The extensions a client takes once it calls a Harn method (see above); advertised at `initialize`. */
export const EXTENSIONS_BY_METHOD: Readonly<Record<string, readonly string[]>> = {
  'session/inject': ['user_message'],
  'session/replace_inject': ['user_message'],
  'session/remind': ['reminder_emitted'],
  'session/attach': ['live_session_client'],
  'session/takeover': ['live_session_client'],
  'session/detach': ['live_session_client'],
  'session/heartbeat': ['live_session_client'],
};

/** The opt-in after the client called `method`: what it had, plus what that method promises. */
export function optInAfter(optIn: ExtensionOptIn, method: string): ExtensionOptIn {
  const added = EXTENSIONS_BY_METHOD[method];
  if (optIn === 'all' || !added || added.every((k) => optIn.has(k))) return optIn;
  return new Set([...optIn, ...added]);
}

/** Whether a `session/update` of this kind may go to a client with this opt-in. */
export function acceptsUpdate(optIn: ExtensionOptIn, sessionUpdate: string): boolean {
  return STANDARD_SESSION_UPDATES.has(sessionUpdate) || optIn === 'all' || optIn.has(sessionUpdate);
}

function field(o: unknown, key: string): unknown {
  return typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[key] : undefined;
}
