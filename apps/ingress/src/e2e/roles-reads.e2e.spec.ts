import { runMatrix } from './roles-matrix';

// The role matrix for reading sessions, forking and re-driving them, and administering the
// tenant, on every surface that has them (see roles-matrix.ts).

jest.setTimeout(300_000);

runMatrix('roles_reads', ['read', 'fork', 're-drive', 'administer']);
