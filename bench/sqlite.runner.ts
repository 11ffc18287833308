import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadSqliteDriver } from '../lib/backends/sqlite/sqlite-driver';
import { SqliteBackend } from '../lib/backends/sqlite/sqlite.backend';
import type { BackendConfig } from '../lib/core/backend-config.interface';
import { BackendRunner } from './backend.runner';
import { SQLITE } from './figures';
import { currentThreadmillApi } from './task-service.producer';
import { storeRules } from '../lib/lifecycle/store-rules';

const ALIAS = 'bench';
const QUEUE = 'default';
/** better-sqlite3 is synchronous: batches in flight only interleave, they never overlap. */
const FILL_IN_FLIGHT = 1;

/**
 * Threadmill on the SQLite backend, driven exactly as ThreadmillRunner drives
 * the Redis one (BackendRunner: same consumer, records, no-op and TaskService
 * context), on a database file
 * in a private temporary folder with the backend's defaults (WAL,
 * `synchronous = NORMAL`). `reset()` deletes the file and opens a new one, so
 * every scenario starts from an empty database as the Redis runners start
 * from an emptied Redis; `close()` removes the folder.
 */
export class SqliteRunner extends BackendRunner {
  readonly name = SQLITE;
  readonly store = 'sqlite';
  protected backend: SqliteBackend;
  private generation = 0;

  /** @param folder the private temporary folder of the database files. */
  private constructor(readonly folder: string) {
    super(QUEUE, FILL_IN_FLIGHT, currentThreadmillApi);
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
    // The TaskService context's backend has the file open too; the next enqueue figure boots another.
    await this.closeProducer();
    await this.backend.close();
    rmSync(this.filename, { force: true });
    rmSync(`${this.filename}-wal`, { force: true });
    rmSync(`${this.filename}-shm`, { force: true });
    this.generation++;
    this.backend = this.open();
  }

  async close(): Promise<void> {
    try {
      await this.closeProducer();
      await this.backend.close();
    } finally {
      rmSync(this.folder, { recursive: true, force: true });
    }
  }

  protected backendConfig(): BackendConfig {
    return { backend: SqliteBackend, url: this.filename, queues: [QUEUE] };
  }

  private open(): SqliteBackend {
    return new SqliteBackend(ALIAS, this.backendConfig(), storeRules);
  }
}
