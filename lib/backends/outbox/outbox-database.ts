import type { Logger } from '@nestjs/common';
import type { Client, ClientConfig, Pool, PoolClient } from 'pg';

import { checkout } from '../postgres/postgres-checkout';
import { loadPostgresDriver, type PostgresDriver } from '../postgres/postgres-driver';
import { channelName, outboxRelayLockKey } from '../postgres/postgres-names';
import { migrate } from '../postgres/postgres-schema';
import type { OutboxSettings } from './outbox-settings';

/**
 * The app's Postgres as the outbox of one Redis alias uses it: a pool for
 * the migrations and the backlog's reads (the app's own, or a small one of
 * its own), connections of the relay's own, the outbox channel and the
 * relay's lock key. The schema is migrated once, before the first read.
 *
 * @internal
 */
export class OutboxDatabase {
  readonly channel: string;
  readonly relayLockKey: string;
  private readonly driver: PostgresDriver;
  private readonly ownPool: Pool | null;
  private readonly pool: Pool;
  private migrated: Promise<void> | null = null;

  constructor(
    readonly alias: string,
    private readonly settings: OutboxSettings,
    private readonly logger: Logger,
  ) {
    this.driver = loadPostgresDriver(alias);
    this.channel = channelName(settings.schema, alias, 'outbox');
    this.relayLockKey = outboxRelayLockKey(settings.schema, alias);
    if ('pool' in settings.target) {
      this.ownPool = null;
      // A pg Pool, as the option says: the type is written out only to keep pg out of the main entry.
      this.pool = settings.target.pool as Pool;
    } else {
      this.ownPool = new this.driver.Pool({ ...this.clientConfig(), max: 2 });
      // An idle connection the server dropped: the pool replaces it; the next call reports any outage.
      this.ownPool.on('error', (error) =>
        logger.warn(`The outbox's Postgres connection of "${alias}" was lost: ${error.message}`),
      );
      this.pool = this.ownPool;
    }
  }

  get schema(): string {
    return this.settings.schema;
  }

  /** Settles once the schema holds the outbox table (migrated once; a failure is tried again). */
  ready(): Promise<void> {
    if (this.migrated === null) {
      const migrating = this.withClient((client) =>
        migrate(client, this.alias, this.settings.schema),
      ).then(() => undefined);
      migrating.catch(() => {
        if (this.migrated === migrating) this.migrated = null;
      });
      this.migrated = migrating;
    }
    return this.migrated;
  }

  /** `work` on a connection of the pool; one that failed is closed instead of reused. */
  async withClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const held = await checkout(this.pool);
    try {
      const result = await work(held.client);
      held.release();
      return result;
    } catch (error) {
      held.release(error instanceof Error ? error : new Error(String(error)));
      throw error;
    }
  }

  /**
   * A connection of its own, outside any pool: its session lock goes with it.
   * Heard from before it connects: a loss fails the call waiting on it, and
   * one between calls (or in the read that completes the connect) would
   * otherwise end the process.
   */
  async connect(): Promise<Client> {
    const client = new this.driver.Client(this.clientConfig());
    client.on('error', (error) =>
      this.logger.debug(`outbox relay connection of "${this.alias}": ${error.message}`),
    );
    await client.connect();
    return client;
  }

  /** Ends the pool it made; the app's own is the app's to close. */
  async close(): Promise<void> {
    await this.ownPool?.end();
  }

  private clientConfig(): ClientConfig {
    const { target } = this.settings;
    const base: ClientConfig =
      'url' in target ? { connectionString: target.url } : target.pool.options;
    return {
      ...base,
      keepAlive: true,
      fallback_application_name: `threadmill outbox pid ${process.pid}`,
    };
  }
}
