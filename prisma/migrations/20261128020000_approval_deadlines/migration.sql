-- Approval deadlines survive Redis losing its data (ADR 0050): the reconciler looks up the
-- pending approvals that have a deadline, across tenants, in deadline order. A partial index
-- holds only those (resolved approvals, the bulk of the table, are not in it). Prisma's schema
-- language has no partial index: schema.prisma names it in a comment.
CREATE INDEX "read_approvals_pending_deadline_idx" ON "read_approvals"("deadline_at", "tenant_id", "session_id", "approval_id")
  WHERE "status" = 'pending' AND "deadline_at" IS NOT NULL;

-- One log event may become more than one webhook message per endpoint: an escalation is the
-- first approval's `approval.expired` and the new one's `approval.requested` (ADR 0050). Still
-- one message per (endpoint, event, type), so the outbox stays exactly-once.
DROP INDEX "webhook_messages_endpoint_id_event_position_key";
CREATE UNIQUE INDEX "webhook_messages_endpoint_id_event_position_event_type_key" ON "webhook_messages"("endpoint_id", "event_position", "event_type");
