import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

import {
  DEFAULT_QUEUE,
  InvalidBackendConfigError,
  invalidBackendOption,
  type BackendConfig,
} from '../../core';

/**
 * `options` of a SQLite backend alias. Durations are milliseconds; the first
 * four mean what they mean for the Redis backend (RedisBackendOptions).
 *
 * @publicApi
 */
export interface SqliteBackendOptions {
  /** Longest a started task may stay unacknowledged before it is FAILED with AcknowledgementTimeout. Default 1 h. */
  leaseTtl?: number;
  /** How long results and history are kept. Default 1 day. */
  resultTtl?: number;
  /** Period of the broker pass (promote deferred, reap leases, trim). Default 1 s. */
  brokerInterval?: number;
  /** Most tasks promoted or reaped per broker pass. Default 100. */
  batchSize?: number;
  /** How long a write waits for another process's transaction before failing. Default 5 s. */
  busyTimeout?: number;
  /**
   * Longest idle wait between two checks for work enqueued by another process
   * (waits start at 2 ms and double up to this). Work enqueued in the same
   * process wakes a waiting consumer at once. Default 100 ms.
   */
  maxPollInterval?: number;
  /**
   * SQLite `synchronous` in WAL mode: `NORMAL` survives any process crash;
   * `FULL` also survives power loss, at one fsync per transaction. Default `NORMAL`.
   */
  synchronous?: 'NORMAL' | 'FULL';
}

/** Every option resolved, plus the absolute database path and the queues. @internal */
export interface ResolvedSqliteBackendConfig extends Required<SqliteBackendOptions> {
  filename: string;
  queues: string[];
}

/** @internal */
export const SQLITE_BACKEND_DEFAULTS: Required<SqliteBackendOptions> = {
  leaseTtl: 60 * 60 * 1000,
  resultTtl: 24 * 60 * 60 * 1000,
  brokerInterval: 1000,
  batchSize: 100,
  busyTimeout: 5000,
  maxPollInterval: 100,
  synchronous: 'NORMAL',
};

/** Options that are a count of milliseconds (or of tasks, for batchSize) and must be positive. */
const POSITIVE_NUMBER_OPTIONS = [
  'leaseTtl',
  'resultTtl',
  'brokerInterval',
  'batchSize',
  'busyTimeout',
  'maxPollInterval',
] as const;

const SYNCHRONOUS_MODES: readonly string[] = ['NORMAL', 'FULL'];

/** A configured value as the error message shows it (strings quoted, so "100" is told from 100). */
const shown = (value: unknown): string => {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    // BigInt and cyclic values cannot be stringified; their type is enough to point at the mistake.
    return typeof value;
  }
};

/**
 * Accepted `url` forms, all naming a file on this machine:
 * `sqlite:///abs/path.db` (absolute), `sqlite://relative/path.db` (or `sqlite:relative/path.db`),
 * `file:///abs/path.db`, `file:relative/path.db`, or a plain path. A relative
 * path is resolved against the working directory once, so the pool's forked
 * processes all open the same file.
 */
function filenameFromUrl(url: string): string {
  const path = url.replace(/^sqlite:(\/\/)?/, '').replace(/^file:(\/\/(?=\/))?/, '');
  return resolve(decodeURIComponent(path));
}

/**
 * Validates an alias's config and fills in defaults. Throws
 * `InvalidBackendConfigError` naming the alias and the option, so a typo fails
 * bootstrap instead of being ignored.
 *
 * @internal
 */
export function resolveSqliteBackendConfig(
  alias: string,
  config: BackendConfig,
): ResolvedSqliteBackendConfig {
  const fail = (option: string, problem: string): never => {
    throw new InvalidBackendConfigError(invalidBackendOption(alias, option, problem));
  };
  if (typeof config.url !== 'string' || config.url.trim() === '') {
    fail('url', 'is required: use sqlite:///absolute/path/to/threadmill.db or a file path');
  }
  const url = (config.url as string).trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^(sqlite|file):/i.test(url)) {
    fail('url', `"${url.split(':')[0]}:" is not a SQLite url; use sqlite:///path/to/file.db`);
  }
  const queues = config.queues ?? [DEFAULT_QUEUE];
  if (
    !Array.isArray(queues) ||
    queues.length === 0 ||
    queues.some((q) => typeof q !== 'string' || q === '')
  ) {
    fail('queues', 'must be a non-empty list of queue names');
  }

  const given: Record<string, unknown> = config.options ?? {};
  for (const key of Object.keys(given)) {
    if (!(key in SQLITE_BACKEND_DEFAULTS)) {
      fail(
        key,
        `is not a SqliteBackend option (known: ${Object.keys(SQLITE_BACKEND_DEFAULTS).join(', ')})`,
      );
    }
  }
  const resolved: ResolvedSqliteBackendConfig = {
    ...SQLITE_BACKEND_DEFAULTS,
    filename: filenameFromUrl(url),
    queues: [...queues],
  };
  for (const key of POSITIVE_NUMBER_OPTIONS) {
    const value = given[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      fail(key, `must be a positive number of milliseconds, got ${shown(value)}`);
    }
    resolved[key] = value as number;
  }
  if (!Number.isInteger(resolved.batchSize)) {
    fail('batchSize', `must be a whole number of tasks, got ${resolved.batchSize}`);
  }
  if (given.synchronous !== undefined) {
    if (!SYNCHRONOUS_MODES.includes(given.synchronous as string)) {
      fail('synchronous', `must be "NORMAL" or "FULL", got ${shown(given.synchronous)}`);
    }
    resolved.synchronous = given.synchronous as 'NORMAL' | 'FULL';
  }
  return resolved;
}

/** Creates the database's folder (and its parents) if it does not exist yet. @internal */
export function ensureParentFolder(filename: string): void {
  mkdirSync(dirname(filename), { recursive: true });
}
