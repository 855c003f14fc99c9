-- Quorum approvals (issue 23, ADR 0048): the inbox shows, for an approval that needs several
-- approvers, how many it needs, from whom, and each approval so far. Null for an approval that
-- the first answer decides (every approval before quorums). Kept by the `approvals` projection.
ALTER TABLE "read_approvals" ADD COLUMN "quorum" JSONB;
