import { runMatrix } from './roles-matrix';

// The role matrix for what changes a session: turns in new and existing sessions, cancels,
// approvals and reminders, on every surface that has them (see roles-matrix.ts).

jest.setTimeout(300_000);

runMatrix('roles_commands', [
  'submit a turn in a new session',
  'submit a turn in an existing session',
  'cancel a turn',
  'answer an approval',
  'queue a reminder',
]);
