import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadSqliteDriver } from '../lib/backends/sqlite/sqlite-driver';
import { SqliteBackend } from '../lib/backends/sqlite/sqlite.backend';
import type { TaskRecord } from '../lib/core/task-record.interface';
import { TaskResultStatus } from '../lib/core/task-result-status.enum';
import { assertJsonSafe } from '../lib/core/task-serializer';
import {
  inParallel,
  type QueueRunner,
  type RunningConsumer,
  type TaskStartListener,
} from './queue-runner.interface';
import { readyRecord } from '../test/helpers/ready-record';
import { SQLITE } from './figures';
import { ThreadmillConsumer, type RunTask } from './threadmill.consumer';
import { TASK_NAME } from './threadmill.runner';

const ALIAS = 'bench';
const QUEUE = 'default';
const FILL_BATCH = 1000;
/** better-sqlite3 is synchronous: batches in flight only interleave, they never overlap. */
const FILL_IN_FLIGHT = 1;
/** How long an idle acquire waits before it is re-issued (as for the Redis runner). */
const IDLE_WAIT_MS = 5000;

/** The no-op task: what TaskRunner returns for a task that returns nothing. */
const noop: RunTask = async (record) => ({
  ...record,
  status: TaskResultStatus.SUCCESSFUL,
  finishedAt: new Date(),
  returnValue: null,
});

/**
 * Threadmill on the SQLite backend, driven exactly as ThreadmillRunner drives
 * the Redis one (same consumer, same records, same no-op), on a database file
 * in a private temporary folder with the backend's defaults (WAL,
 * `synchronous = NORMAL`). `reset()` deletes the file and opens a new one, so
 * every scenario starts from an empty database as the Redis runners start
 * from an emptied Redis; `close()` removes the folder.
 */
export class SqliteRunner implements QueueRunner {
  readonly name = SQLITE;
  readonly store = 'sqlite';
  private backend: SqliteBackend;
  private generation = 0;

  /** @param folder the private temporary folder of the database files. */
  private constructor(readonly folder: string) {
    this.backend = this.open();
  }

  static async create(): Promise<SqliteRunner> {
    const folder = mkdtempSync(join(tmpdir(), 'threadmill-bench-sqlite-'));
    try {
      const runner = new SqliteRunner(folder);
      await runner.backend.ping();
      return runner;
    } catch (error) {
      // No runner to close() if the backend cannot open (e.g. better-sqlite3 not built).
      rmSync(folder, { recursive: true, force: true });
      throw error;
    }
  }

  /** The SQLite library better-sqlite3 was built with, e.g. "3.50.4". */
  libraryVersion(): string {
    const Driver = loadSqliteDriver(ALIAS);
    const db = new Driver(':memory:');
    try {
      return (db.prepare('SELECT sqlite_version() AS version').get() as { version: string })
        .version;
    } finally {
      db.close();
    }
  }

  /** The database file of the current scenario. */
  get filename(): string {
    return join(this.folder, `bench-${this.generation}.db`);
  }

  async reset(): Promise<void> {
    await this.backend.close();
    rmSync(this.filename, { force: true });
    rmSync(`${this.filename}-wal`, { force: true });
    rmSync(`${this.filename}-shm`, { force: true });
    this.generation++;
    this.backend = this.open();
  }

  async fill(n: number, payload?: string): Promise<void> {
    const args = payload === undefined ? [] : [payload];
    const batches = Math.ceil(n / FILL_BATCH);
    await inParallel(batches, FILL_IN_FLIGHT, async (b) => {
      const size = Math.min(FILL_BATCH, n - b * FILL_BATCH);
      await this.backend.enqueueMany(Array.from({ length: size }, () => this.record(args)));
    });
  }

  async prepareDrain(
    n: number,
    slots: number,
  ): Promise<{ run(): Promise<void>; close(): Promise<void> }> {
    const consumer = this.consumer(slots, n, noop);
    return { run: () => consumer.run(), close: async () => undefined };
  }

  async enqueueSequential(n: number): Promise<void> {
    for (let i = 0; i < n; i++) await this.backend.enqueue(this.record([]));
  }

  async enqueueConcurrent(n: number, inFlight: number): Promise<void> {
    await inParallel(n, inFlight, async () => {
      await this.backend.enqueue(this.record([]));
    });
  }

  async enqueueBulk(n: number, batch: number): Promise<void> {
    for (let sent = 0; sent < n; sent += batch) {
      const size = Math.min(batch, n - sent);
      await this.backend.enqueueMany(Array.from({ length: size }, () => this.record([])));
    }
  }

  async startConsumer(slots: number, onStart: TaskStartListener): Promise<RunningConsumer> {
    const abort = new AbortController();
    const consumer = this.consumer(
      slots,
      null,
      async (record) => {
        onStart(record.args[0] as number);
        return noop(record);
      },
      abort.signal,
    );
    const running = consumer.run();
    return {
      stop: async () => {
        abort.abort();
        await running;
      },
    };
  }

  async enqueueOne(seq: number): Promise<void> {
    await this.backend.enqueue(this.record([seq]));
  }

  async close(): Promise<void> {
    try {
      await this.backend.close();
    } finally {
      rmSync(this.folder, { recursive: true, force: true });
    }
  }

  private open(): SqliteBackend {
    return new SqliteBackend(ALIAS, {
      backend: SqliteBackend,
      url: this.filename,
      queues: [QUEUE],
    });
  }

  private consumer(
    slots: number,
    limit: number | null,
    runTask: RunTask,
    signal?: AbortSignal,
  ): ThreadmillConsumer {
    return new ThreadmillConsumer(this.backend, {
      queues: [QUEUE],
      slots,
      workerId: `${hostname()}:${process.pid}-bench`,
      runTask,
      limit,
      idleWaitMs: IDLE_WAIT_MS,
      signal,
    });
  }

  /** The record TaskService.enqueue builds for a task with default options. */
  private record(args: unknown[]): TaskRecord {
    assertJsonSafe(args, TASK_NAME, 'args');
    return readyRecord(ALIAS, { name: TASK_NAME, queue: QUEUE, args });
  }
}
