import { DomainError, type HubCommandType } from '@hub/domain';
import type { Role } from './roles';

/** What a key may do to sessions, whatever the protocol it speaks. */
export const SESSION_ACTIONS = ['read', 'submit', 'cancel', 'answer_approval', 'remind', 'fork', 'redrive'] as const;
export type SessionAction = (typeof SESSION_ACTIONS)[number];

/**
 * Each role's session actions (docs/administration/index.md). `client` keys act on the sessions they opened
 * only ({@link OWN_SESSIONS_ONLY}); admin keys also manage the tenant's keys (the admin API).
 */
export const GRANTS: Readonly<Record<Role, ReadonlySet<SessionAction>>> = {
  admin: new Set(SESSION_ACTIONS),
  operator: new Set(SESSION_ACTIONS),
  approver: new Set<SessionAction>(['read', 'answer_approval']),
  viewer: new Set<SessionAction>(['read']),
  client: new Set<SessionAction>(['read', 'submit', 'cancel', 'answer_approval', 'remind']),
};

/** Roles that see and act on only the sessions their own key opened. */
export const OWN_SESSIONS_ONLY: ReadonlySet<Role> = new Set<Role>(['client']);

const COMMAND_ACTIONS: Readonly<Record<HubCommandType, SessionAction>> = {
  SubmitTurn: 'submit',
  CancelTurn: 'cancel',
  ResolveApproval: 'answer_approval',
  QueueReminder: 'remind',
  RevokeReminder: 'remind',
};

/** The action a command is. Exhaustive: a new command does not compile until it is placed. */
export function actionOf(command: HubCommandType): SessionAction {
  return COMMAND_ACTIONS[command];
}

export function mayDo(role: Role, action: SessionAction): boolean {
  return GRANTS[role].has(action);
}

/** What the refusal says: the action, the role, and which roles may. */
export function refusal(role: Role, action: SessionAction): string {
  const may = (Object.keys(GRANTS) as Role[]).filter((r) => GRANTS[r].has(action));
  return `this key's role (${role}) may not ${action.replace('_', ' ')}; roles that may: ${may.join(', ')}`;
}

/** Throws FORBIDDEN (naming the roles that may) unless `role` may do `action`. */
export function requireGrant(role: Role, action: SessionAction): void {
  if (!mayDo(role, action)) throw new DomainError('FORBIDDEN', refusal(role, action));
}
