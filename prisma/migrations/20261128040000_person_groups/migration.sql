-- Approvers named by identity group (issue 23): a console session keeps the person's groups as
-- the provider gave them at sign-in, read again at every refresh like the role, so an approval
-- rule's `approvers.groups` can be checked against them. Sessions from before sign in with none.
ALTER TABLE "person_sessions" ADD COLUMN "groups" TEXT[] NOT NULL DEFAULT '{}';
