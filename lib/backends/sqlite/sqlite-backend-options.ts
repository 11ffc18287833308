import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { BackendConfig } from '../../core/backend-config.interface';
import type { QueueLimits } from '../../core/queue-limits';
import type { Retention } from '../../core/retention';
import type { BackendOptions } from '../backend-options.interface';
import { BackendConfigReader } from '../backend-config.reader';

/** The options of SqliteBackend besides the ones every backend has. */
const SQLITE_OWN_OPTIONS = ['busyTimeout', 'maxPollInterval', 'synchronous'];

/**
 * `options` of a SQLite backend alias. Durations are milliseconds; the first
 * four mean what they mean for the Redis backend (RedisBackendOptions).
 *
 * @publicApi
 */
export interface SqliteBackendOptions extends BackendOptions {
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

/** The settings resolved from every option, plus the absolute database path and the queues. @internal */
export interface SqliteBackendSettings extends Required<Omit<SqliteBackendOptions, 'retention'>> {
  retention: Retention;
  filename: string;
  queues: string[];
  /** The configured limits by queue, seeded into the file. */
  limits: Readonly<Record<string, QueueLimits>>;
}

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
export function resolveSqliteBackendSettings(
  alias: string,
  config: BackendConfig,
): SqliteBackendSettings {
  const reader = new BackendConfigReader(alias, config, 'SqliteBackend', SQLITE_OWN_OPTIONS);
  if (typeof config.url !== 'string' || config.url.trim() === '') {
    reader.fail('url', 'is required: use sqlite:///absolute/path/to/threadmill.db or a file path');
  }
  const url = (config.url as string).trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^(sqlite|file):/i.test(url)) {
    reader.fail(
      'url',
      `"${url.split(':')[0]}:" is not a SQLite url; use sqlite:///path/to/file.db`,
    );
  }
  return {
    ...reader.common(),
    busyTimeout: reader.milliseconds('busyTimeout', 5000),
    maxPollInterval: reader.milliseconds('maxPollInterval', 100),
    synchronous: reader.oneOf('synchronous', ['NORMAL', 'FULL'] as const, 'NORMAL'),
    filename: filenameFromUrl(url),
    queues: reader.queues,
  };
}

/** Creates the database's folder (and its parents) if it does not exist yet. @internal */
export function ensureParentFolder(filename: string): void {
  mkdirSync(dirname(filename), { recursive: true });
}
