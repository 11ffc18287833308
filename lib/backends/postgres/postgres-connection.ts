import type { LoggerService } from '@nestjs/common';
import type {
  ClientBase,
  ClientConfig,
  CustomTypesConfig,
  Pool,
  PoolClient,
  QueryResultRow,
} from 'pg';
import { BackendUnavailableError } from '../../core/errors/backend-unavailable.error';
import { ThreadmillError } from '../../core/errors/threadmill.error';
import type { StoreMigration } from '../../core/store-migration';
import { backendClosed } from '../../core/threadmill.messages';
import type { PostgresBackendSettings } from './postgres-backend-options';
import { checkout } from './postgres-checkout';
import { PostgresClock, SERVER_MS } from './postgres-clock';
import type { PostgresDriver } from './postgres-driver';
import { isConnectionLoss, isRunAgain, postgresFailure } from './postgres-errors';
import { lockKey, sessionName } from './postgres-names';
import { noticeStatement } from './postgres-notice-filter';
import { PostgresStartup } from './postgres-startup';

/** How often a transaction that lost a deadlock is run again before its error is thrown. */
const RUNS = 5;
/** pg's type id of `bigint`: ms times and counts, all within Number's safe range. */
const INT8 = 20;

/** A feed a notification belongs to: sent only while that feed has a live listener. */
export type FeedName = 'finished' | 'live';

/**
 * When a notification is sent: always (''), while its feed has a live
 * listener, or (`limited`, the payload a queue) while its queue has a
 * concurrency limit, whose room a finished task frees.
 */
export type NoticeCondition = '' | FeedName | 'limited';

/** One transaction, as the parts write in it. */
export interface PostgresTx {
  query<R extends QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  /** Sent when the transaction commits, if `condition` holds then. */
  notify(channel: string, payload: string, condition?: NoticeCondition): void;
  /** Runs once the transaction committed (this process's own wake-ups). */
  afterCommit(run: () => void): void;
}

/**
 * One PostgresBackend's pool of connections, its schema migrated before the
 * first call (`ready`). Every call runs through it, so a closed backend or a
 * pg failure is a typed error (postgresFailure). A transaction runs again
 * when it lost a deadlock; its notifications go with its COMMIT, after a
 * shared lock on the alias's feed lock taken with its BEGIN: a subscriber
 * takes that lock exclusively to write its listener row, so no transaction
 * that checked for listeners before the row commits after the subscribe.
 *
 * @internal
 */
export class PostgresConnection {
  readonly pool: Pool;
  readonly types: CustomTypesConfig;
  /** The lock a subscriber takes exclusively and every writing transaction shares. */
  readonly feedLockKey: string;
  /** The server's clock, measured with the migration (PostgresClock). */
  readonly clock: PostgresClock;
  private isClosed = false;
  private readonly startup: PostgresStartup;

  constructor(
    private readonly alias: string,
    private readonly settings: PostgresBackendSettings,
    private readonly logger: LoggerService,
    private readonly driver: PostgresDriver,
  ) {
    this.feedLockKey = lockKey('feeds', settings.schema, alias);
    this.types = {
      getTypeParser: ((oid: number, format?: 'text' | 'binary'): ((value: string) => unknown) =>
        oid === INT8
          ? (value: string) => Number(value)
          : (driver.types.getTypeParser(oid, format) as (
              value: string,
            ) => unknown)) as CustomTypesConfig['getTypeParser'],
    };
    this.pool = new driver.Pool({ ...this.clientConfig(), max: settings.poolSize });
    this.clock = new PostgresClock(alias, logger, async () =>
      this.isClosed
        ? null
        : ((await this.pool.query<{ ms: number }>(SERVER_MS)).rows[0]?.ms ?? null),
    );
    // An idle connection the server dropped: the pool replaces it; the next call reports any outage.
    this.pool.on('error', (error) => {
      logger.warn(`Postgres connection of "${alias}" lost while idle: ${error.message}`);
    });
    this.startup = new PostgresStartup(alias, settings, this.clock, (work) =>
      this.withClient(work),
    );
  }

  /** Settles once the schema is migrated (or checked) and the clock measured (PostgresStartup). */
  get ready(): Promise<void> {
    return this.isClosed ? Promise.resolve() : this.startup.ready();
  }

  /** Migrates the schema now (the `migrate` command). */
  async migrateSchema(): Promise<StoreMigration> {
    this.assertOpen();
    try {
      return await this.startup.migrate();
    } catch (error) {
      throw this.failure(error);
    }
  }

  /**
   * How a connection of this backend connects: the pool's to `url`, the
   * listener's to `listenUrl`; `bounded: false` for the migration's, whose
   * statements may rightly wait longer than commandTimeout (another
   * instance's migration).
   */
  clientConfig({ listener = false, bounded = true } = {}): ClientConfig {
    const config = {
      connectionString: listener ? this.settings.listenUrl : this.settings.url,
      types: this.types,
      // Keep-alive probes find a connection a dead network dropped, the listener's above all.
      keepAlive: true,
      // Names the process in pg_stat_activity, unless the url or PGAPPNAME names it otherwise.
      fallback_application_name: sessionName(process.pid),
    };
    const timeout = this.settings.commandTimeout;
    return bounded
      ? { ...config, query_timeout: timeout, connectionTimeoutMillis: timeout }
      : config;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  get schema(): string {
    return this.settings.schema;
  }

  /**
   * The server's time now (ms since the epoch, PostgresClock), once the
   * clock is measured: no round trip of its own.
   */
  async storeNow(): Promise<number> {
    this.assertOpen();
    try {
      await this.ready;
    } catch (error) {
      throw this.failure(error);
    }
    return this.clock.now();
  }

  /** One statement, its own transaction (reads, and writes that are one statement). */
  async query<R extends QueryResultRow>(text: string, values?: unknown[]): Promise<R[]> {
    this.assertOpen();
    for (let run = 1; ; run++) {
      try {
        await this.ready;
        return (await this.pool.query<R>(text, values)).rows;
      } catch (error) {
        // A statement that lost a deadlock was rolled back whole: running it again is safe.
        if (run < RUNS && isRunAgain(error)) continue;
        throw this.failure(error);
      }
    }
  }

  /**
   * Runs `work` in one transaction, again (whole) when it lost a deadlock.
   * A connection lost while its COMMIT was under way leaves the outcome
   * unknown: `commitLost` names the error then (else it is a lost connection).
   */
  async transaction<T>(
    work: (tx: PostgresTx) => Promise<T>,
    feedLock = true,
    commitLost?: (cause: unknown) => ThreadmillError,
  ): Promise<T> {
    this.assertOpen();
    for (let run = 1; ; run++) {
      try {
        await this.ready;
        return await this.runOnce(work, feedLock, commitLost);
      } catch (error) {
        if (run < RUNS && isRunAgain(error)) continue;
        throw this.failure(error);
      }
    }
  }

  /** A pg failure as the caller sees it (postgresFailure), naming listenUrl for the listener's. */
  failure(error: unknown, listener = false): unknown {
    // A call under way when the backend closed meets a pool that has ended.
    if (this.isClosed && !(error instanceof ThreadmillError)) {
      return new BackendUnavailableError(backendClosed(this.alias), { cause: error });
    }
    const target = listener ? this.settings.listenTarget : this.settings.target;
    return postgresFailure(this.alias, target, error);
  }

  assertOpen(): void {
    if (this.isClosed) throw new BackendUnavailableError(backendClosed(this.alias));
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    await this.pool.end();
  }

  private async runOnce<T>(
    work: (tx: PostgresTx) => Promise<T>,
    feedLock: boolean,
    commitLost?: (cause: unknown) => ThreadmillError,
  ): Promise<T> {
    const { client, lost, release } = await checkout(this.pool);
    const notices: [channel: string, payload: string, feed: string][] = [];
    const after: (() => void)[] = [];
    let broken: Error | undefined;
    let committing = false;
    try {
      await client.query(
        feedLock ? `BEGIN; SELECT pg_advisory_xact_lock_shared(${this.feedLockKey})` : 'BEGIN',
      );
      const tx: PostgresTx = {
        query: async <R extends QueryResultRow>(text: string, values?: unknown[]) =>
          (await client.query<R>(text, values)).rows,
        notify: (channel, payload, condition) => notices.push([channel, payload, condition ?? '']),
        afterCommit: (run) => after.push(run),
      };
      const result = await work(tx);
      committing = true;
      await client.query(
        `${noticeStatement(client, notices, this.schema, this.alias, this.clock.now())}COMMIT`,
      );
      for (const run of after) run();
      return result;
    } catch (error) {
      const gone = isConnectionLoss(error) || lost() !== undefined;
      broken = gone ? (lost() ?? (error as Error)) : await this.rollback(client, error);
      // The server may have committed before the connection went: nobody can tell.
      if (committing && gone && commitLost) throw commitLost(error);
      throw error;
    } finally {
      release(broken);
    }
  }

  /** Rolls back after `error`; the error to release the client with when it cannot. */
  private async rollback(client: PoolClient, error: unknown): Promise<Error | undefined> {
    try {
      await client.query('ROLLBACK');
      return undefined;
    } catch (rollbackError) {
      this.logger.warn(
        `Rollback on "${this.alias}" failed after ${String(error)}: ${String(rollbackError)}; ` +
          'the connection is closed.',
      );
      return rollbackError as Error;
    }
  }

  /** Runs `work` on a connection of its own (the start's), unbounded by commandTimeout. */
  private async withClient<T>(work: (client: ClientBase) => Promise<T>): Promise<T> {
    const client = new this.driver.Client(this.clientConfig({ bounded: false }));
    // Heard so a connection lost between two statements fails the start, not the process.
    client.on('error', (error) => {
      this.logger.warn(`Migration connection of "${this.alias}" lost: ${error.message}`);
    });
    try {
      await client.connect();
      return await work(client);
    } finally {
      // A failure leaves the migration's transaction open: ending the connection rolls it back.
      await client.end().catch((error: unknown) => {
        this.logger.debug?.(
          `Closing the migration connection of "${this.alias}": ${String(error)}`,
        );
      });
    }
  }
}
