import { Logger } from '@nestjs/common';
import type { Database, Transaction } from 'better-sqlite3';

import {
  assertDistinctIds,
  backendClosed,
  BackendUnavailableError,
  deserializeRecord,
  InvalidTaskError,
  holdsLease,
  isRetry,
  queueNotConfigured,
  retryNotReady,
  serializeRecord,
  sqliteUnavailable,
  TaskAlreadyExistsError,
  taskAlreadyExists,
  TaskResult,
  TaskResultDoesNotExist,
  taskResultDoesNotExist,
  TaskResultStatus,
  unleasedRecord,
  type AcknowledgeAndAcquireResult,
  type AcknowledgeOutcome,
  type AcquireOptions,
  type BackendConfig,
  type BackendFeatures,
  type BackendTelemetry,
  type MaintenancePassOptions,
  type MaintenancePassReport,
  type QueueSegment,
  type RetryOutcome,
  type TaskBackend,
  type TaskRecord,
} from '../../core';
import { delayUntil } from '../../core/run-after';
import {
  ensureParentFolder,
  resolveSqliteBackendConfig,
  type ResolvedSqliteBackendConfig,
} from './sqlite-backend-options';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';
import { loadSqliteDriver } from './sqlite-driver';
import { SqliteMaintenance } from './sqlite-maintenance';
import { LIVE_TASK_EXPIRES_AT, SqliteRows } from './sqlite-rows';
import {
  configureConnection,
  META_MAINTENANCE_HEARTBEAT,
  migrate,
  SqliteStatements,
} from './sqlite-statements';
import { SqliteWaiter } from './sqlite-waiter';

/** First idle wait of an acquire; doubled after every empty check up to maxPollInterval. */
const FIRST_POLL_MS = 2;

/** Task name recorded on a task whose stored data could not be read at all. */

/** Ready-queue score: priority first, then FIFO by enqueue time, as in the Redis backend. */
const readyScore = (record: TaskRecord): number =>
  -record.task.priority * 1e13 + record.enqueuedAt.getTime();

/**
 * A zero-infrastructure backend: one SQLite file on this machine, shared by
 * every process of the worker pool. Same semantics as the Redis backend
 * (the backend contract); every state change runs in one `BEGIN IMMEDIATE` transaction, so
 * two processes never take the same task, and WAL mode lets reads (idle
 * checks, peek, telemetry) run beside the single writer.
 *
 * better-sqlite3 (an optional peer dependency) is loaded when the first
 * SqliteBackend is constructed, never when the package is imported.
 *
 * @example
 * ThreadmillModule.forRoot({
 *   backends: { default: { backend: SqliteBackend, url: 'sqlite:///var/lib/app/threadmill.db' } },
 * });
 * @throws InvalidBackendConfigError for a missing url, an unknown option or a
 *   non-positive duration (naming the alias and the option), or when
 *   better-sqlite3 is not installed.
 * @throws BackendUnavailableError when the file cannot be opened or migrated.
 * @publicApi
 */
export class SqliteBackend implements TaskBackend {
  readonly queues: readonly string[];
  /**
   * No `blockingAcquire`: an idle consumer wakes at once for work enqueued in
   * its own process, but checks (cheaply, with backoff) for work from others.
   */
  readonly features: BackendFeatures = {
    defer: true,
    bulkEnqueue: true,
    blockingAcquire: false,
    sharedAcrossProcesses: true,
  };
  readonly maintenanceIntervalMs: number;
  readonly leaseTtlMs: number;

  private readonly logger = new Logger(SqliteBackend.name);
  private readonly config: ResolvedSqliteBackendConfig;
  private readonly db: Database;
  private readonly sql: SqliteStatements;
  private readonly waiter = new SqliteWaiter();
  /**
   * Per queue list, the change marker at which it was last found empty. The
   * marker combines `PRAGMA data_version` (moves when another connection
   * commits) with `localChanges` (moves when this one adds work), so an idle
   * consumer skips the query while nothing anywhere has changed.
   */
  private readonly emptyAt = new Map<string, string>();
  private localChanges = 0;
  private closed = false;

  private readonly enqueueTx: Transaction<(records: readonly TaskRecord[], now: number) => void>;
  private readonly acquireTx: Transaction<
    (
      queues: readonly string[],
      workerId: string,
      max: number,
      now: number,
      poolId: string | null,
    ) => TaskRecord[]
  >;
  private readonly retryTx: Transaction<
    (records: readonly TaskRecord[], now: number) => RetryOutcome[]
  >;
  private readonly retirePoolTx: Transaction<(poolId: string, now: number) => void>;
  private readonly acknowledgeTx: Transaction<
    (records: readonly TaskRecord[], now: number) => AcknowledgeOutcome[]
  >;
  private readonly acknowledgeAndTakeTx: Transaction<AcknowledgeAndTake>;
  private readonly releaseTx: Transaction<
    (records: readonly TaskRecord[], now: number, unstarted: boolean) => number
  >;
  private readonly rows: SqliteRows;
  private readonly maintenance: SqliteMaintenance;

  constructor(
    readonly alias: string,
    config: BackendConfig,
  ) {
    this.config = resolveSqliteBackendConfig(alias, config);
    this.queues = this.config.queues;
    this.maintenanceIntervalMs = this.config.maintenanceInterval;
    this.leaseTtlMs = this.config.leaseTtl;

    const Driver = loadSqliteDriver(alias);
    let db: Database | undefined;
    try {
      ensureParentFolder(this.config.filename);
      db = new Driver(this.config.filename, { timeout: this.config.busyTimeout });
      configureConnection(db, this.config.busyTimeout, this.config.synchronous);
      migrate(db);
      this.sql = new SqliteStatements(db);
    } catch (error) {
      db?.close();
      throw new BackendUnavailableError(
        sqliteUnavailable(alias, this.config.filename, errorText(error)),
        { cause: error },
      );
    }
    this.db = db;
    this.rows = new SqliteRows(alias, this.config, this.sql, this.logger);
    this.maintenance = new SqliteMaintenance({
      alias,
      config: this.config,
      db,
      sql: this.sql,
      rows: this.rows,
      guard: (run) => this.guard(run),
      workAdded: () => this.workAdded(),
    });

    this.enqueueTx = db.transaction((records: readonly TaskRecord[], now: number) => {
      for (const record of records) this.store(record, now);
    });
    this.acquireTx = db.transaction(
      (
        queues: readonly string[],
        workerId: string,
        max: number,
        now: number,
        poolId: string | null,
      ) => this.take(queues, workerId, max, now, poolId),
    );
    this.retryTx = db.transaction((records: readonly TaskRecord[], now: number) =>
      records.map((record): RetryOutcome => {
        const row = this.sql.selectRunning.get(this.alias, record.id);
        if (!row) {
          const stored = this.sql.selectTask.get(this.alias, record.id, now);
          return stored?.data === serializeRecord(record) ? 'already-stored' : 'stale';
        }
        this.rows.requeue(record, row.seq, now);
        return 'retried';
      }),
    );
    this.retirePoolTx = db.transaction((poolId: string, now: number) => {
      // A pool that still holds tasks (a release that failed) lapses now, so the next pass recovers them.
      if ((this.sql.countPoolTasks.get(this.alias, poolId) ?? 0) > 0) {
        this.sql.upsertPool.run(this.alias, poolId, now);
      } else {
        this.sql.deletePool.run(this.alias, poolId);
      }
    });
    this.acknowledgeTx = db.transaction((records: readonly TaskRecord[], now: number) =>
      records.map((record) => this.finish(record, now)),
    );
    this.acknowledgeAndTakeTx = db.transaction<AcknowledgeAndTake>(
      (finished, queues, workerId, max, now, poolId) => ({
        acknowledged: finished.map((record) => this.finish(record, now)),
        acquired: max > 0 ? this.take(queues, workerId, max, now, poolId) : [],
      }),
    );
    this.releaseTx = db.transaction(
      (records: readonly TaskRecord[], now: number, unstarted: boolean) =>
        records.reduce((held, record) => held + this.putBack(record, now, unstarted), 0),
    );
  }

  async enqueue(record: TaskRecord): Promise<TaskRecord> {
    await this.enqueueMany([record]);
    return record;
  }

  async enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    for (const record of records) this.assertQueue(record);
    if (records.length === 0) return [];
    assertDistinctIds(records);
    this.guard(() => this.enqueueTx.immediate(records, Date.now()));
    this.workAdded();
    return [...records];
  }

  async acquire(queues: readonly string[], options: AcquireOptions): Promise<TaskRecord[]> {
    const { workerId, signal } = options;
    const max = maxOf(options);
    const deadline = Date.now() + Math.max(0, options.timeoutMs);
    let delay = FIRST_POLL_MS;
    for (;;) {
      if (this.closed || signal?.aborted) return [];
      const taken = this.tryAcquire(queues, workerId, max, options.poolId ?? null);
      if (taken.length > 0) return taken;
      const remaining = deadline - Date.now();
      if (remaining <= 0) return [];
      await this.waiter.wait(Math.min(delay, remaining), signal);
      delay = Math.min(delay * 2, this.config.maxPollInterval);
    }
  }

  async acknowledgeAndAcquire(
    finished: readonly TaskRecord[],
    queues: readonly string[],
    options: AcquireOptions,
  ): Promise<AcknowledgeAndAcquireResult> {
    if (finished.length === 0) {
      return { acknowledged: [], acquired: await this.acquire(queues, options) };
    }
    // Stopping: what finished is still stored, nothing new is leased.
    const stopping = this.closed || options.signal?.aborted === true;
    // Outcomes are not held back by an idle queue: the caller waits for work with acquire.
    return this.guard(() =>
      this.acknowledgeAndTakeTx.immediate(
        finished,
        queues,
        options.workerId,
        stopping ? 0 : maxOf(options),
        Date.now(),
        options.poolId ?? null,
      ),
    );
  }

  async acknowledge(records: readonly TaskRecord[]): Promise<AcknowledgeOutcome[]> {
    if (records.length === 0) return [];
    return this.guard(() => this.acknowledgeTx.immediate(records, Date.now()));
  }

  async retry(records: readonly TaskRecord[]): Promise<RetryOutcome[]> {
    for (const record of records) {
      if (!isRetry(record)) throw new InvalidTaskError(retryNotReady(record.id, record.status));
      this.assertQueue(record);
    }
    if (records.length === 0) return [];
    const outcomes = this.guard(() => this.retryTx.immediate(records, Date.now()));
    if (outcomes.includes('retried')) this.workAdded();
    return outcomes;
  }

  async beatPool(poolId: string, ttlMs: number): Promise<void> {
    this.guard(() => this.sql.upsertPool.run(this.alias, poolId, Date.now() + ttlMs));
  }

  async retirePool(poolId: string): Promise<void> {
    this.guard(() => this.retirePoolTx.immediate(poolId, Date.now()));
  }

  async release(records: readonly TaskRecord[]): Promise<number> {
    if (records.length === 0) return 0;
    return this.giveBack(records, false);
  }

  async unlease(records: readonly TaskRecord[]): Promise<number> {
    return this.giveBack(records, true);
  }

  private giveBack(records: readonly TaskRecord[], unstarted: boolean): number {
    const held = this.guard(() => this.releaseTx.immediate(records, Date.now(), unstarted));
    if (held > 0) this.workAdded();
    return held;
  }

  async peek(queue: string, segment: QueueSegment, count: number): Promise<TaskRecord[]> {
    const now = Date.now();
    const limit = count > 0 ? Math.trunc(count) : -1;
    const rows = this.guard(() =>
      segment === 'successful' || segment === 'failed'
        ? this.sql.peekResults.all(
            this.alias,
            queue,
            segment === 'successful' ? TaskResultStatus.SUCCESSFUL : TaskResultStatus.FAILED,
            now - this.config.retention.longestMaxAgeMs,
            now,
            limit,
          )
        : this.sql.peekTasks[segment].all(this.alias, queue, now, limit),
    );
    const records: TaskRecord[] = [];
    for (const row of rows) {
      try {
        records.push(deserializeRecord(row.id, row.data));
      } catch (error) {
        // Peek only reads: the consumer that acquires this task fails it properly.
        this.logger.warn(`peek skipped task ${row.id} of "${this.alias}": ${errorText(error)}`);
      }
    }
    return records;
  }

  async telemetry(intervalMs: number): Promise<BackendTelemetry> {
    const now = Date.now();
    return this.guard(() =>
      this.snapshot(() => {
        const telemetry: BackendTelemetry = { queues: {} };
        for (const queue of this.queues) {
          const tasks = this.sql.countTasks.get({ alias: this.alias, queue, now });
          const results = this.sql.countResults.get({
            alias: this.alias,
            queue,
            since: now - this.config.retention.longestMaxAgeMs,
            now,
            windowStart: now - intervalMs,
          });
          const ingress = this.sql.countIngress.get(this.alias, queue, now - intervalMs) ?? 0;
          telemetry.queues[queue] = {
            counts: {
              ready: tasks?.ready ?? 0,
              running: tasks?.running ?? 0,
              deferred: tasks?.deferred ?? 0,
              successful: results?.successful ?? 0,
              failed: results?.failed ?? 0,
            },
            rates: {
              intervalMs,
              ingress,
              egress: (results?.successfulInWindow ?? 0) + (results?.failedInWindow ?? 0),
              failed: results?.failedInWindow ?? 0,
            },
          };
        }
        return telemetry;
      }),
    );
  }

  async getResult(id: string): Promise<TaskRecord> {
    const now = Date.now();
    // Tasks before results, in one snapshot: an acknowledge moves a row from the first to the second.
    const row = this.guard(() =>
      this.snapshot(
        () =>
          this.sql.selectTask.get(this.alias, id, now) ??
          this.sql.selectResult.get(this.alias, id, now),
      ),
    );
    if (!row) throw new TaskResultDoesNotExist(taskResultDoesNotExist(id, this.alias));
    return deserializeRecord(id, row.data);
  }

  async maintenancePass(options: MaintenancePassOptions = {}): Promise<MaintenancePassReport> {
    return runMaintenancePass(this.maintenance, this, this.config, options, this.logger);
  }

  async maintenanceHeartbeat(): Promise<Date | null> {
    const value = this.guard(() => this.sql.readMeta.get(this.alias, META_MAINTENANCE_HEARTBEAT));
    return value === undefined ? null : new Date(Number(value));
  }

  async ping(): Promise<void> {
    this.guard(() => this.sql.ping.get());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.waiter.close();
    this.db.close();
  }

  /** Runs reads in one read transaction, so they see one consistent state (WAL: never blocks writers). */
  private snapshot<T>(read: () => T): T {
    return this.db.transaction(read).deferred();
  }

  /** Idle consumers in this process look again now; consumers elsewhere see data_version move. */
  private workAdded(): void {
    this.localChanges++;
    this.waiter.notify();
  }

  private changeMarker(): string {
    return `${String(this.db.pragma('data_version', { simple: true }))}:${this.localChanges}`;
  }

  /**
   * One attempt. Only when a cheap read (no write lock, so it never waits for
   * or blocks producers) sees work does it take the write lock to claim it.
   */
  private tryAcquire(
    queues: readonly string[],
    workerId: string,
    max: number,
    poolId: string | null,
  ): TaskRecord[] {
    return this.guard(() => {
      const key = queues.join('\n');
      const marker = this.changeMarker();
      if (this.emptyAt.get(key) === marker) return [];
      const now = Date.now();
      if (!queues.some((queue) => this.sql.hasReady.get(this.alias, queue, now) === 1)) {
        this.emptyAt.set(key, marker);
        return [];
      }
      return this.acquireTx.immediate(queues, workerId, max, now, poolId);
    });
  }

  private assertQueue(record: TaskRecord): void {
    if (!this.queues.includes(record.task.queue)) {
      throw new InvalidTaskError(
        queueNotConfigured(record.task.name, record.task.queue, this.alias, this.queues),
      );
    }
  }

  /**
   * Inside enqueueTx: write the task (ready, or deferred until runAfter) and
   * an ingress event; TaskAlreadyExistsError (which rolls the whole
   * transaction back) when its id is live or a result within resultTtl. An
   * expired row the trim has not reached yet is replaced.
   */
  private store(record: TaskRecord, now: number): void {
    const stored =
      this.sql.selectTask.get(this.alias, record.id, now) ??
      this.sql.selectResult.get(this.alias, record.id, now);
    if (stored) {
      const existing = deserializeRecord(record.id, stored.data);
      throw new TaskAlreadyExistsError(
        taskAlreadyExists(record.id, this.alias, existing.status),
        new TaskResult(existing, this),
      );
    }
    // As on Redis, runAfter becomes the wait left of it, added to the store's clock. Here that
    // is the clock of the process in the transaction: a SQLite store's processes share one
    // machine and so one clock, which only libfaketime per process can make differ.
    const wait = delayUntil(record.task.runAfter, now);
    const deferred = wait > 0;
    this.sql.insertTask.run({
      alias: this.alias,
      id: record.id,
      queue: record.task.queue,
      state: deferred ? 'deferred' : 'ready',
      score: readyScore(record),
      runAt: deferred ? now + wait : null,
      expiresAt: LIVE_TASK_EXPIRES_AT,
      data: serializeRecord(record),
    });
    this.sql.insertIngress.run(this.alias, record.task.queue, now);
  }

  /** Inside acquireTx: claim up to `max` of the first non-empty queue; unreadable rows are failed, never returned. */
  private take(
    queues: readonly string[],
    workerId: string,
    max: number,
    now: number,
    poolId: string | null,
  ): TaskRecord[] {
    for (const queue of queues) {
      const taken: TaskRecord[] = [];
      for (;;) {
        const rows = this.sql.selectReady.all(this.alias, queue, now, max - taken.length);
        if (rows.length === 0) break;
        for (const row of rows) {
          const stored = this.rows.read(row, now);
          if (!stored) continue;
          const running: TaskRecord = {
            ...stored,
            status: TaskResultStatus.RUNNING,
            startedAt: stored.startedAt ?? new Date(now),
            lastAttemptedAt: new Date(now),
            workerIds: [...stored.workerIds, workerId],
          };
          this.sql.markRunning.run(
            now + this.config.leaseTtl,
            LIVE_TASK_EXPIRES_AT,
            serializeRecord(running),
            poolId,
            row.seq,
          );
          taken.push(running);
        }
        if (taken.length >= max) break;
      }
      if (taken.length > 0) return taken;
    }
    return [];
  }

  /** Inside acknowledgeTx: store one result if its lease is still held. */
  private finish(record: TaskRecord, now: number): AcknowledgeOutcome {
    const row = this.sql.selectRunning.get(this.alias, record.id);
    if (!row) {
      const stored = this.sql.selectResult.get(this.alias, record.id, now);
      return stored?.data === serializeRecord(record) ? 'already-stored' : 'stale';
    }
    this.rows.finish(record, row, now);
    return 'acknowledged';
  }

  /** Inside releaseTx: back to the ready queue at its old place, unfinished. 1 if it was still held. */
  private putBack(record: TaskRecord, now: number, unstarted: boolean): number {
    const row = this.sql.selectRunning.get(this.alias, record.id);
    if (!row) return 0;
    const stored = this.rows.read(row, now);
    if (!stored) return 0;
    // A task that never started goes back as before its lease, and only while it holds that lease.
    if (unstarted && !holdsLease(stored, record)) return 0;
    const ready: TaskRecord = unstarted
      ? unleasedRecord(stored)
      : { ...stored, status: TaskResultStatus.READY };
    this.sql.markReady.run(LIVE_TASK_EXPIRES_AT, serializeRecord(ready), row.seq);
    return 1;
  }

  /** Runs a database call; a closed backend or a SQLite failure becomes BackendUnavailableError. */
  private guard<T>(run: () => T): T {
    if (this.closed) {
      throw new BackendUnavailableError(backendClosed(this.alias));
    }
    try {
      return run();
    } catch (error) {
      if (isSqliteError(error)) {
        throw new BackendUnavailableError(
          sqliteUnavailable(this.alias, this.config.filename, errorText(error)),
          { cause: error },
        );
      }
      throw error;
    }
  }
}

/**
 * Recognised by shape, not by class (not even by `instanceof Error`): the
 * native addon keeps the SqliteError class of the first copy of better-sqlite3
 * loaded in the process, which need not be the copy (or the realm) this
 * module sees, e.g. with two installs or jest's per-file module registries.
 */
const isSqliteError = (error: unknown): boolean => {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === 'SqliteError' && typeof code === 'string' && code.startsWith('SQLITE_');
};

const errorText = (error: unknown): string => {
  const { name, message } = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    message?: unknown;
  };
  return typeof message === 'string'
    ? `${typeof name === 'string' ? name : 'Error'}: ${message}`
    : String(error);
};

/** Stores finished records, then leases up to `max` tasks (none when 0), in one transaction. */
type AcknowledgeAndTake = (
  finished: readonly TaskRecord[],
  queues: readonly string[],
  workerId: string,
  max: number,
  now: number,
  poolId: string | null,
) => AcknowledgeAndAcquireResult;

/** The most tasks one acquire takes: `max`, a whole number of at least 1 (default 1). */
function maxOf(options: AcquireOptions): number {
  const requested = options.max ?? 1;
  return Number.isFinite(requested) ? Math.max(1, Math.trunc(requested)) : 1;
}
