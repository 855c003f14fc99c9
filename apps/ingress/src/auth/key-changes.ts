import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ApiKeyService, KeyLiveness, VerifiedKeys } from '@hub/auth';
import { ListenConnection } from '@hub/event-store';
import type { IngressSettings } from '../settings';

/** The channel a committed change to a key (any but a use; deleted too) is told on (migrations `…_api_key_changes`, `…_api_key_every_change`). */
const KEY_CHANGES_CHANNEL = 'hub_keys';

/** The longest a verified key is trusted without a read even if no change was heard. */
const MAX_KEY_AGE_MS = 60_000;

/**
 * This process hears every committed change to an API key (`LISTEN hub_keys`, one connection)
 * and tells whoever keeps something about keys: the verified keys forget what they kept (the
 * next request reads the row), and the open sockets re-check their keys now instead of at their
 * next sweep. After a lost connection the reconnect counts as a change (what was said meanwhile
 * is lost). ADR 0027. Built by the providers (`hubProviders`), which start it.
 */
export class KeyChanges implements OnApplicationShutdown {
  readonly verified: VerifiedKeys;
  private readonly listen: ListenConnection;
  private readonly others: (() => void)[] = [];
  private readonly log = new Logger('keys');

  constructor(keys: ApiKeyService, liveness: KeyLiveness, settings: Pick<IngressSettings, 'databaseUrl'>) {
    this.listen = new ListenConnection(
      settings.databaseUrl,
      () => this.changed(),
      (message, error) => this.log.warn(`${message}${error ? `: ${String(error)}` : ''}`),
      KEY_CHANGES_CHANNEL,
    );
    this.verified = new VerifiedKeys(keys, liveness, { listening: () => this.listen.connected, maxAgeMs: MAX_KEY_AGE_MS });
  }

  /** Starts listening (until it does, every check reads the database). */
  async start(): Promise<void> {
    await this.listen.connect();
  }

  /** `f` runs whenever a key changed (or changes may have been missed). */
  onChange(f: () => void): void {
    this.others.push(f);
  }

  private changed(): void {
    this.verified.forgetAll();
    for (const f of this.others) f();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.listen.close();
  }
}
