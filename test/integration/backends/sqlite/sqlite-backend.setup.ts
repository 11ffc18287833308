import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import Database from 'better-sqlite3';

import { SqliteBackend } from '../../../../lib/backends/sqlite/sqlite.backend';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';

/** Leases, runAfter and TTLs are about time itself: wait until the clock has passed `ms` from now. */
export const clockPassed = (ms: number, what: string) => {
  const until = Date.now() + ms;
  return waitFor(() => Date.now() > until, { what });
};

export const succeed = (record: TaskRecord, returnValue: unknown): TaskRecord => ({
  ...record,
  status: TaskResultStatus.SUCCESSFUL,
  finishedAt: new Date(),
  returnValue,
});

/** What a test of the calling describe works on; set afresh before each test. */
export interface SqliteFile {
  /** A folder of the test's own, removed after it. */
  dir: string;
  /** The database file in `dir`. */
  filename: string;
  alias: string;
  /** A backend of `alias` on `url` (the file by default), closed after the test. */
  open(options?: Record<string, unknown>, url?: string): SqliteBackend;
  /** A backend the test made itself, to be closed after it. */
  track(backend: SqliteBackend): SqliteBackend;
  /** A second, plain connection to the file: what an operator's sqlite3 shell would see. */
  openRaw(path?: string): Database.Database;
}

/**
 * A database file of its own for each test of the calling describe, a fresh
 * alias, and every backend and plain connection it opened closed after it.
 */
export function sqliteFileEachTest(): SqliteFile {
  const backends: SqliteBackend[] = [];
  const raw: Database.Database[] = [];
  const file: SqliteFile = {
    dir: '',
    filename: '',
    alias: '',
    open: (options = {}, url = `sqlite://${file.filename}`) =>
      file.track(
        new SqliteBackend(file.alias, { backend: SqliteBackend, url, options }, storeRules),
      ),
    track: (backend) => {
      backends.push(backend);
      return backend;
    },
    openRaw: (path = file.filename) => {
      const db = new Database(path);
      raw.push(db);
      return db;
    },
  };

  beforeEach(() => {
    file.dir = mkdtempSync(join(tmpdir(), 'threadmill-sqlite-'));
    file.filename = join(file.dir, 'threadmill.db');
    file.alias = testAlias();
  });

  afterEach(async () => {
    for (const db of raw.splice(0)) db.close();
    for (const backend of backends.splice(0)) await backend.close();
    rmSync(file.dir, { recursive: true, force: true });
  });

  return file;
}
