export { EventStore, type StreamInfo } from './event-store';
export { EventSubscriber } from './event-subscriber';
export { ListenConnection } from './listen-connection';
export type { EventsHandler, SubscribeFilter, SubscriberOptions, Subscription } from './event-subscriber';
export { appendWithRetry } from './append-retry';
export type { RetryOptions } from './append-retry';
export { EVENTS_CHANNEL } from './append';
export { DEFAULT_MAX_EVENT_BYTES } from './event-validation';
export { migrate, MigrationError } from './migrate';
export type { MigrateOptions, MigrateResult } from './migrate';
export { createPool, createPrismaClient, PrismaClient, setPrismaTenant } from './prisma-client';
export type { PoolOptions, Prisma, RawExecutor } from './prisma-client';
export type {
  AppendOptions,
  AppendResult,
  EventStoreOptions,
  ExpectedVersion,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  ReadStreamResult,
  StoredEvent,
} from './types';
export { assertPostgresReachable } from './preflight';
export { SnapshotStore, type Snapshot } from './snapshots';
export { SECRET_REF_PREFIX, SecretStore, UnknownSecretError } from './secret-store';
export { chainHeads, exportLine, exportStream, readChainPage, verifyChains, verifyExportLines, type ChainRow, type VerifyReport } from './audit';
export { eventHash, type BrokenLink } from './hash-chain';
export { eraseStreams, type ErasedStream } from './erasure';
export {
  SCOPE_SETTING,
  TENANT_SETTING,
  asSystem,
  asTenant,
  beginAs,
  scopeStatement,
  scoped,
  systemScope,
  tenantScope,
  type DbScope,
  type ScopedDb,
  type SystemWork,
} from './scope';
export { APP_ROLE, devAppUrl, ensureAppLogin, rowSecurityProblem } from './app-role';
export { assertConnectionsFit, connectionProblem, type ConnectionRoom, type ConnectionUse } from './connection-budget';
export { PRISMA_POOL_SIZE } from './prisma-client';
