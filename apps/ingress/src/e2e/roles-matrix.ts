import { ACTIONS, type Ctx } from './roles-surfaces';
import { RolesWorld, WHO, type Outcome, type Who } from './roles-world';

// Issue 16: "A test matrix runs every action on every surface with every role." What each role
// may do is the table of docs/administration/index.md, written out here once per action, and every
// surface that has the action is held to it: the protocol's own refusal, and nothing appended.

const ok = 'ok';
const forbidden = 'forbidden';
const notFound = 'not_found';
const row = (admin: Outcome, operator: Outcome, approver: Outcome, viewer: Outcome, client: Outcome, own: Outcome): Record<Who, Outcome> => ({
  admin,
  operator,
  approver,
  viewer,
  client,
  'client, own session': own,
});

/** That table, per action: a key of each role on an operator's session, and a client key on its own. */
export const EXPECTED: Record<keyof typeof ACTIONS, Record<Who, Outcome>> = {
  read: row(ok, ok, ok, ok, notFound, ok),
  'submit a turn in a new session': row(ok, ok, forbidden, forbidden, ok, ok),
  'submit a turn in an existing session': row(ok, ok, forbidden, forbidden, notFound, ok),
  'cancel a turn': row(ok, ok, forbidden, forbidden, notFound, ok),
  'answer an approval': row(ok, ok, ok, forbidden, notFound, ok),
  'queue a reminder': row(ok, ok, forbidden, forbidden, notFound, ok),
  fork: row(ok, ok, forbidden, forbidden, forbidden, forbidden),
  're-drive': row(ok, ok, forbidden, forbidden, forbidden, forbidden),
  administer: row(ok, forbidden, forbidden, forbidden, forbidden, forbidden),
};

/** Runs the rows of `actions` on one stack: describe per action and surface, a test per role. */
export function runMatrix(label: string, actions: (keyof typeof ACTIONS)[]): void {
  let world: RolesWorld;
  beforeAll(async () => {
    world = await RolesWorld.start(label);
  });
  afterAll(() => world?.stack.stop());

  describe.each(actions)('%s', (action) => {
    describe.each(Object.keys(ACTIONS[action]))('over %s', (surface) => {
      it.each([...WHO])('as %s', async (who) => {
        const r = ACTIONS[action][surface];
        const ctx: Ctx = r.prepare ? await r.prepare(world, who) : { session: '' };
        let outcome: Outcome = 'not run';
        try {
          const before = await world.stack.countAllEvents();
          outcome = await r.act(world, who, ctx);
          const appended = (await world.stack.countAllEvents()) - before;
          expect(outcome).toBe(EXPECTED[action][who]);
          if (outcome !== 'ok') expect({ appended }).toEqual({ appended: 0 });
        } finally {
          // What an allowed action set going (an approved write, a cancel) ends before the next row counts.
          if (ctx.session) await world.settle(ctx.session);
          await ctx.pending?.catch(() => undefined);
          if (outcome === 'ok' && action !== 'read') await world.quiet();
        }
      });
    });
  });
}
