import { defineConfig } from 'prisma/config';

// Used by the Prisma CLI only (`prisma generate`, and `prisma migrate deploy` where its schema
// engine can be downloaded). The hub itself reads DATABASE_URL through libs/config.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/hub' },
});
