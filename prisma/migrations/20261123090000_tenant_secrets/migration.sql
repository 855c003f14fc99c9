-- Values of environment variables a tenant gives its MCP servers and wrapped harnesses. They are
-- kept here, not in the append-only log: the log, its exports and GET responses carry only a
-- reference (`hub-secret:<id>`), so an erasure or a leaked export does not spread them.
-- CreateTable
CREATE TABLE "tenant_secrets" (
    "id" UUID NOT NULL,
    "tenant_id" UUID NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenant_secrets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "tenant_secrets_tenant_id_idx" ON "tenant_secrets"("tenant_id");

-- AddForeignKey
ALTER TABLE "tenant_secrets" ADD CONSTRAINT "tenant_secrets_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
