import type { AcpSdkClient } from '../acp/testing/sdk-client';
import type { Outcome, RolesWorld, Who } from './roles-world';

/** What a row's `prepare` made for its `act`: the session, and what the action needs of it. */
export interface Ctx {
  session: string;
  approvalId?: string;
  episodeId?: string;
  acp?: AcpSdkClient;
  refused?: Outcome;
  pending?: Promise<unknown>;
}

/** One action on one surface (roles-surfaces.ts and the per-protocol row files). */
export interface Row {
  prepare?(w: RolesWorld, who: Who): Promise<Ctx>;
  act(w: RolesWorld, who: Who, ctx: Ctx): Promise<Outcome>;
}
