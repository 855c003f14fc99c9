import type { Role } from '@hub/auth';
import { POLICY_ROLES, type PolicyRole } from '@hub/policy';

// @hub/policy is pure and cannot import @hub/auth, so it repeats the list of roles. These two
// lines stop compiling when the lists part (a role added to one and not the other).
const sameRoles: [PolicyRole] extends [Role] ? ([Role] extends [PolicyRole] ? true : false) : false = true;
void sameRoles;
void POLICY_ROLES;
