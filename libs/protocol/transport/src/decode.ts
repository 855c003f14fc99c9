import { HubCommand } from '@hub/domain';
import type { z } from 'zod';
import { ClientMessage, HARNESS_COMMAND_TYPES, MAX_COMMANDS_PER_MESSAGE, type HarnessCommand } from './schema';
import { parseJsonInput } from '@hub/protocol-input';

export { MAX_COMMANDS_PER_MESSAGE };

/** The transport's own error codes for input it cannot turn into commands. */
export type DecodeErrorCode = 'invalid_json' | 'invalid_message' | 'unknown_command';

export interface DecodeError {
  readonly code: DecodeErrorCode;
  readonly message: string;
}

/** What decoding needs from the connection: its session, and ids (pure code cannot make them). */
export interface DecodeContext {
  readonly sessionId: string;
  readonly newId: () => string;
}

export type DecodeResult = { ok: true; commands: HubCommand[] } | { ok: false; error: DecodeError };

/** Larger frames are refused before parsing; a prompt has no business being a megabyte. */
export const MAX_CLIENT_MESSAGE_CHARS = 1_048_576;

/**
 * Decodes one client WebSocket frame into canonical commands, all or nothing. `submit` becomes
 * SubmitTurn (turn id = the client's `id`, else `ctx.newId()`), `cancel` CancelTurn (the active
 * turn), `approve` / `deny` ResolveApproval. Never throws.
 */
export function decode(raw: string, ctx: DecodeContext): DecodeResult {
  if (raw.length > MAX_CLIENT_MESSAGE_CHARS) {
    return fail('invalid_message', `message has ${raw.length} characters; the limit is ${MAX_CLIENT_MESSAGE_CHARS}`);
  }
  // The hub's one input check (depth, string size, NUL, unpaired surrogates) runs before the
  // recursive zod parse below.
  const parsed = parseJsonInput(raw);
  if (!parsed.ok && parsed.kind === 'syntax') return fail('invalid_json', `message is ${parsed.message}`);
  if (!parsed.ok) return fail('invalid_message', parsed.message);
  const json = parsed.value;
  const count = commandCount(json);
  if (count > MAX_COMMANDS_PER_MESSAGE) {
    return fail('invalid_message', `a frame carries at most ${MAX_COMMANDS_PER_MESSAGE} commands; this one has ${count}`);
  }
  const unknownType = findUnknownCommandType(json);
  if (unknownType !== undefined) {
    return fail('unknown_command', `unknown command type ${JSON.stringify(unknownType)}; expected one of ${HARNESS_COMMAND_TYPES.join(', ')}`);
  }
  const message = ClientMessage.safeParse(json);
  if (!message.success) return fail('invalid_message', describeIssues(message.error.issues));
  const commands: HubCommand[] = [];
  for (const [index, command] of message.data.commands.entries()) {
    const decoded = toHubCommand(command, index, ctx);
    if (!decoded.ok) return decoded;
    commands.push(decoded.command);
  }
  return { ok: true, commands };
}

/** Counted before any command is looked at, so an over-cap frame costs nothing more. */
function commandCount(json: unknown): number {
  return isRecord(json) && Array.isArray(json['commands']) ? json['commands'].length : 0;
}

/** Told apart from a malformed command, so a newer client learns what this server lacks. */
function findUnknownCommandType(json: unknown): string | undefined {
  if (!isRecord(json) || json['type'] !== 'commands' || !Array.isArray(json['commands'])) return undefined;
  for (const command of json['commands']) {
    const type = isRecord(command) ? command['type'] : undefined;
    if (typeof type === 'string' && !(HARNESS_COMMAND_TYPES as readonly string[]).includes(type)) return type;
  }
  return undefined;
}

function toHubCommand(command: HarnessCommand, index: number, ctx: DecodeContext): { ok: true; command: HubCommand } | { ok: false; error: DecodeError } {
  if (command.type === 'submit' && command.prompt.trim() === '') {
    return fail('invalid_message', `commands[${index}].prompt: must not be empty`);
  }
  // The canonical schema fills the defaults and checks what the wire schema cannot (session id).
  const parsed = HubCommand.safeParse(candidateFor(command, ctx));
  if (!parsed.success) return fail('invalid_message', `commands[${index}]: ${describeIssues(parsed.error.issues)}`);
  return { ok: true, command: parsed.data };
}

function candidateFor(command: HarnessCommand, { sessionId, newId }: DecodeContext): Record<string, unknown> {
  switch (command.type) {
    case 'submit':
      return { type: 'SubmitTurn', sessionId, turnId: command.id ?? newId(), prompt: command.prompt, busyPolicy: command.busyPolicy };
    case 'cancel':
      return { type: 'CancelTurn', sessionId };
    case 'approve':
    case 'deny':
      return {
        type: 'ResolveApproval',
        sessionId,
        approvalId: command.approvalId,
        decision: command.type === 'approve' ? 'approved' : 'denied',
        reason: command.reason ?? null,
      };
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled transport command ${JSON.stringify(unhandled)}`);
    }
  }
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${formatPath(issue.path)}: ${issue.message}`)
    .join('; ');
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(message)';
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`)).join('');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(code: DecodeErrorCode, message: string): { ok: false; error: DecodeError } {
  return { ok: false, error: { code, message } };
}
