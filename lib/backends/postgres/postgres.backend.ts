import { Logger } from '@nestjs/common';
import type { BackendConfig } from '../../core/backend-config.interface';
import type { StoreRules } from '../../core/ports/store-rules.port';
import type { StoreMigration } from '../../core/store-migration';
import type { BackendFeatures, TaskBackend } from '../../core/task-backend.interface';
import { finishedRecordSource } from '../../core/wait-for-finished';
import { PartsBackend } from '../parts-backend';
import { StoreGuard } from '../store-guard';
import { PostgresAcquirer } from './postgres-acquirer';
import { PostgresAppTransaction } from './postgres-app-transaction';
import { resolvePostgresBackendSettings } from './postgres-backend-options';
import { PostgresCancels } from './postgres-cancels';
import { PostgresConnection } from './postgres-connection';
import { PostgresControlStatements } from './postgres-control-statements';
import { loadPostgresDriver } from './postgres-driver';
import { PostgresEnqueuer } from './postgres-enqueuer';
import { PostgresFeeds } from './postgres-feeds';
import { PostgresFinishedTasks } from './postgres-finished-tasks';
import { PostgresHeldTasks } from './postgres-held-tasks';
import { PostgresLeaseCall } from './postgres-lease-call';
import { PostgresListener } from './postgres-listener';
import { PostgresListing } from './postgres-listing';
import { PostgresMaintenance } from './postgres-maintenance';
import { PostgresNotices } from './postgres-notices';
import { PostgresPoolStatements } from './postgres-pool-statements';
import { PostgresPools } from './postgres-pools';
import { PostgresQueueLimits } from './postgres-queue-limits';
import { PostgresQueueStatements } from './postgres-queue-statements';
import { PostgresReadStatements } from './postgres-read-statements';
import { PostgresReads } from './postgres-reads';
import { PostgresRows } from './postgres-rows';
import { PostgresSchedules } from './postgres-schedules';
import { PostgresTaskStatements } from './postgres-task-statements';
import { PostgresUniqueKeys } from './postgres-unique-keys';
import { PostgresUniqueStatements } from './postgres-unique-statements';

/**
 * A backend on PostgreSQL, shared by every process of every pool that
 * reaches the database. Same semantics as the other backends (the backend
 * contract): every state change is one transaction whose rows are locked
 * (FOR UPDATE, leases SKIP LOCKED), so two processes never both win; idle
 * consumers and feeds wait on LISTEN/NOTIFY, on one connection of their own.
 * Its tables live in the `schema` option's schema, migrated at start.
 *
 * pg (an optional peer dependency) is loaded when the first PostgresBackend
 * is constructed, never when the package is imported.
 *
 * @example
 * ThreadmillModule.forRoot({
 *   backends: { default: { backend: PostgresBackend, url: 'postgres://app@db:5432/app' } },
 * });
 * @throws InvalidBackendConfigError for a missing url, an unknown option or a
 *   bad value (naming the alias and the option), or when pg is not installed.
 * @publicApi
 */
export class PostgresBackend extends PartsBackend implements TaskBackend {
  readonly queues: readonly string[];
  readonly features: BackendFeatures = {
    defer: true,
    bulkEnqueue: true,
    blockingAcquire: true,
    sharedAcrossProcesses: true,
  };
  readonly maintenanceIntervalMs: number;
  readonly leaseTtlMs: number;

  private readonly guard: StoreGuard;
  private readonly connection: PostgresConnection;
  private readonly listener: PostgresListener;
  private readonly acquirer: PostgresAcquirer;
  private readonly transports: PostgresFeeds;
  private readonly probe: PostgresReads;
  private readonly seed: () => Promise<void>;
  private seeded: Promise<void>;

  constructor(
    readonly alias: string,
    config: BackendConfig,
    rules: StoreRules,
  ) {
    super();
    const settings = resolvePostgresBackendSettings(alias, config);
    const driver = loadPostgresDriver(alias);
    this.queues = settings.queues;
    this.maintenanceIntervalMs = settings.maintenanceInterval;
    this.leaseTtlMs = settings.leaseTtl;
    const logger = new Logger(PostgresBackend.name);
    const s = settings.schema;
    const guard = (this.guard = new StoreGuard(alias, this.queues));
    const connection = (this.connection = new PostgresConnection(alias, settings, logger, driver));
    const notices = new PostgresNotices(s, alias, (queues) => acquirer.workAdded(queues));
    const listener = (this.listener = new PostgresListener(alias, connection, driver, logger, () =>
      acquirer.workAdded(),
    ));
    const tasks = new PostgresTaskStatements(s);
    const rows = new PostgresRows(alias, settings, tasks, notices, logger);
    const queueState = new PostgresQueueLimits(
      alias,
      this.queues,
      connection,
      new PostgresQueueStatements(s),
      notices,
      rules,
    );
    const acquirer = (this.acquirer = new PostgresAcquirer(
      alias,
      settings,
      connection,
      tasks,
      rows,
      queueState,
      notices,
      listener,
      new PostgresLeaseCall(alias, settings, connection, tasks, rows, queueState, notices),
      rules,
      logger,
    ));
    this.seed = () => queueState.seed(settings.limits);
    this.seeded = this.seed();
    // Reported to the first call that awaits it.
    this.seeded.catch(() => undefined);
    const uniqueKeys = new PostgresUniqueKeys(
      alias,
      connection,
      new PostgresUniqueStatements(s),
      notices,
      rules,
    );
    const enqueuer = new PostgresEnqueuer(
      alias,
      connection,
      tasks,
      uniqueKeys,
      notices,
      finishedRecordSource(this),
      rules,
      new PostgresAppTransaction(connection, logger),
    );
    const held = new PostgresHeldTasks(alias, connection, tasks, rows, acquirer, notices, rules);
    const readSql = new PostgresReadStatements(s);
    const reads = (this.probe = new PostgresReads(alias, settings, connection, readSql, logger));
    const listing = new PostgresListing(alias, settings, connection, readSql, logger);
    const control = new PostgresControlStatements(s);
    const cancels = new PostgresCancels(alias, connection, control, tasks, rows);
    const finished = new PostgresFinishedTasks(alias, connection, control, uniqueKeys, notices);
    const poolSql = new PostgresPoolStatements(s);
    const feeds = (this.transports = new PostgresFeeds(
      alias,
      { finished: notices.channel('finished'), live: notices.channel('live') },
      connection,
      listener,
      logger,
    ));
    const seeded = <T>(run: () => Promise<T>): Promise<T> => this.seedLimits().then(run);
    this.expose(guard, {
      tasks: {
        enqueue: (record) => enqueuer.enqueue(record),
        enqueueMany: (records) => enqueuer.enqueueMany(records),
        enqueueInTransaction: (transaction, records) =>
          enqueuer.enqueueInTransaction(transaction, records),
        getResult: (id) => reads.getResult(id),
      },
      leases: {
        acquire: (queues, options) => seeded(() => acquirer.acquire(queues, options)),
        acknowledgeAndAcquire: (records, queues, options) =>
          seeded(async () =>
            records.length === 0
              ? { acknowledged: [], acquired: await acquirer.acquire(queues, options) }
              : held.acknowledgeAndTake(records, queues, options),
          ),
        acknowledge: (records) => held.acknowledge(records),
        retry: (records) => held.retry(records),
        release: (records) => held.releaseOrUnlease(records, false),
        unlease: (records) => held.releaseOrUnlease(records, true),
        storeProgress: (entries) => held.storeProgress(entries),
      },
      control: {
        cancel: (id, decide) => cancels.cancel(id, decide),
        retryFinished: (record, retried) => finished.retry(record, retried),
        removeFinished: (record) => finished.remove(record),
        cancelRequests: (poolId) => cancels.requests(poolId),
        dropCancelRequests: (poolId, requests) => cancels.drop(poolId, requests),
        pauseQueue: (queue) => queueState.pause(queue),
        resumeQueue: (queue) => queueState.resume(queue),
        pausedQueues: () => queueState.paused(),
        setQueueLimits: (queue, limits) => seeded(() => queueState.set(queue, limits)),
        queueLimits: () => seeded(() => queueState.all()),
      },
      reads: {
        peek: (queue, segment, count) => reads.peek(queue, segment, count),
        listTasks: (query) => listing.listTasks(query),
        telemetry: (intervalMs) => reads.telemetry(intervalMs),
        activity: (query) => listing.activity(query),
        maintenanceHeartbeat: () => reads.maintenanceHeartbeat(),
      },
      feeds: {
        subscribeFinished: (listener) => feeds.finished.subscribe(listener),
        subscribeLive: (listener) => feeds.live.subscribe(listener),
      },
      pools: new PostgresPools(alias, connection, poolSql),
      schedules: new PostgresSchedules(alias, connection, s),
      maintenance: new PostgresMaintenance({
        alias,
        settings,
        connection,
        rows,
        pools: poolSql,
        notices,
        writeMeta: readSql.writeMeta,
        forgetFreeKeys: (max) => enqueuer.forgetFreeKeys(max),
      }),
    });
  }

  async ping(): Promise<void> {
    this.guard.assertOpen();
    await this.probe.ping();
  }

  /**
   * Migrates the schema now (`threadmill migrate`), for a deploy that
   * migrates before the apps start (option `migrate: false`).
   *
   * @throws UnsupportedStoreError when the schema is newer than this release.
   * @throws BackendUnavailableError when Postgres cannot be reached.
   */
  async migrate(): Promise<StoreMigration> {
    this.guard.assertOpen();
    const migration = await this.connection.migrateSchema();
    await this.seedLimits();
    return migration;
  }

  /**
   * The configured limits, seeded into the store once; again after a seed
   * that failed (the server was down, or the schema behind, at start).
   */
  private seedLimits(): Promise<void> {
    const seeded = this.seeded;
    return seeded.catch(() => {
      if (this.seeded === seeded) this.seeded = this.seed();
      return this.seeded;
    });
  }

  async close(): Promise<void> {
    if (this.connection.closed) return;
    this.guard.close();
    this.acquirer.close();
    await this.transports.close();
    await this.listener.close();
    await this.connection.close();
  }
}
