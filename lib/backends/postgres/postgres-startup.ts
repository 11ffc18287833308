import type { ClientBase } from 'pg';

import type { StoreMigration } from '../../core/store-migration';
import type { PostgresBackendSettings } from './postgres-backend-options';
import { type PostgresClock, SERVER_MS } from './postgres-clock';
import { POSTGRES_SCHEMA_VERSION } from './postgres-migrations';
import { checkSchema, migrate } from './postgres-schema';

/** Runs `work` on a connection of the pool, closed instead of reused when `work` failed. */
export type WithClient = <T>(work: (client: ClientBase) => Promise<T>) => Promise<T>;

/**
 * What a PostgresConnection does before its first call: migrate the schema
 * (or, with `migrate: false`, check its version) and measure the server's
 * clock. A start that failed is made again by the next call that awaits
 * `ready`, so an app started before its database works once it is up.
 *
 * @internal
 */
export class PostgresStartup {
  private started: Promise<void>;
  private failed = false;
  /** The schema version the last migration found (the migrate command reports it). */
  private foundVersion = POSTGRES_SCHEMA_VERSION;

  constructor(
    private readonly alias: string,
    private readonly settings: PostgresBackendSettings,
    private readonly clock: PostgresClock,
    private readonly withClient: WithClient,
  ) {
    this.started = this.begin(settings.migrate);
  }

  /** Settles once the start succeeded; after one that failed, starts again. */
  ready(): Promise<void> {
    if (this.failed) this.started = this.begin(this.settings.migrate);
    return this.started;
  }

  /** Migrates the schema (the `migrate` command): the start did, unless told not to. */
  async migrate(): Promise<StoreMigration> {
    if (!this.settings.migrate) {
      await this.withClient(async (client) => {
        this.foundVersion = await migrate(client, this.alias, this.settings.schema);
      });
      this.started = this.begin(false);
    }
    await this.ready();
    return {
      from: this.foundVersion,
      to: POSTGRES_SCHEMA_VERSION,
      where: `schema "${this.settings.schema}" of ${this.settings.target}`,
    };
  }

  /** Starts, and notes a failure for `ready` to start again. */
  private begin(migrates: boolean): Promise<void> {
    this.failed = false;
    const started = this.start(migrates);
    // Reported to the calls that await it, not as an unhandled rejection.
    started.catch(() => {
      if (this.started === started) this.failed = true;
    });
    return started;
  }

  private start(migrates: boolean): Promise<void> {
    return this.withClient(async (client) => {
      if (migrates) this.foundVersion = await migrate(client, this.alias, this.settings.schema);
      else await checkSchema(client, this.alias, this.settings.schema);
      await this.clock.measure(
        async () => (await client.query<{ ms: number }>(SERVER_MS)).rows[0].ms,
      );
    });
  }
}
