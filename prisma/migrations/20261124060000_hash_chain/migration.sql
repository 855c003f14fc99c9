-- Tamper evidence (issue 15): each event carries a SHA-256 over its canonical bytes and the
-- previous event's hash in its stream, written in the append transaction; the stream row keeps
-- its head's hash so an append needs no extra read. Events written before this migration have
-- no hash: `hub audit verify` reports them as unchained, and a stream's chain starts at its
-- first hashed event.
ALTER TABLE "events" ADD COLUMN "hash" TEXT;
ALTER TABLE "events" ADD COLUMN "prev_hash" TEXT;
ALTER TABLE "streams" ADD COLUMN "last_hash" TEXT;
