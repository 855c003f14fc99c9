-- Roles, expiry and last use on API keys (issue 17; the roles are issue 16's). Keys that exist
-- keep what they could do: operator. A tenant's first key (tenant create) is admin.
ALTER TABLE "api_keys" ADD COLUMN "role" TEXT NOT NULL DEFAULT 'operator';
ALTER TABLE "api_keys" ADD COLUMN "expires_at" TIMESTAMPTZ(3);
ALTER TABLE "api_keys" ADD COLUMN "last_used_at" TIMESTAMPTZ(3);
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_role_check" CHECK ("role" IN ('admin', 'operator', 'approver', 'viewer', 'client'));
