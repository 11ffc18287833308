import type { BackendConfig } from '../../core/backend-config.interface';
import type { QueueLimits } from '../../core/queue-limits';
import type { Retention } from '../../core/retention';
import type { BackendOptions } from '../backend-options.interface';
import { BackendConfigReader, shownValue } from '../backend-config.reader';

/** The options of PostgresBackend besides the ones every backend has. */
const POSTGRES_OWN_OPTIONS = ['schema', 'poolSize', 'commandTimeout', 'migrate', 'listenUrl'];

/** A schema name used unquoted in every statement: lower case, digits and `_`, at most 63 bytes. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * `options` of a Postgres backend alias. Durations are milliseconds; the
 * common ones mean what they mean for every backend (BackendOptions).
 *
 * @publicApi
 */
export interface PostgresBackendOptions extends BackendOptions {
  /**
   * The schema every table lives in, created if missing. Several aliases may
   * share one schema (each row carries its alias). Default `threadmill`.
   */
  schema?: string;
  /** Connections of this process's pool (one more listens for wake-ups). Default 10. */
  poolSize?: number;
  /**
   * How long a statement, or a new connection, waits for the server before
   * it fails (BackendUnavailableError; an enqueue whose COMMIT it was,
   * EnqueueOutcomeUnknownError) and its connection is dropped, so a network
   * gone silent is never waited out. Migrations are not bound by it. Default 10000.
   */
  commandTimeout?: number;
  /**
   * Whether the backend migrates its schema at start (under an advisory
   * lock, so instances starting at once migrate it once). With `false` it
   * only checks the version and refuses a schema that is behind, naming
   * `threadmill migrate`, which the deploy runs instead. Default `true`.
   */
  migrate?: boolean;
  /**
   * Where the one connection that LISTENs for wake-ups and feeds connects,
   * when `url` leads through a pooler in transaction mode (PgBouncer), which
   * cannot keep a LISTEN: the same database, directly. Default `url`.
   */
  listenUrl?: string;
}

/** The settings resolved from every option, plus the url and the queues. @internal */
export interface PostgresBackendSettings extends Required<
  Omit<PostgresBackendOptions, 'retention'>
> {
  retention: Retention;
  url: string;
  /** The url without its password, for messages. */
  target: string;
  /** listenUrl without its password. */
  listenTarget: string;
  queues: string[];
  /** The configured limits by queue, seeded into the store. */
  limits: Readonly<Record<string, QueueLimits>>;
}

/** `url` with any password replaced, so it can be shown in a message or a log line. */
function targetOf(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}

/**
 * Validates an alias's config and fills in defaults. Throws
 * `InvalidBackendConfigError` naming the alias and the option.
 *
 * @internal
 */
export function resolvePostgresBackendSettings(
  alias: string,
  config: BackendConfig,
): PostgresBackendSettings {
  const reader = new BackendConfigReader(alias, config, 'PostgresBackend', POSTGRES_OWN_OPTIONS);
  if (typeof config.url !== 'string' || config.url.trim() === '') {
    reader.fail('url', 'is required: use postgres://user:password@host:5432/database');
  }
  const url = (config.url as string).trim();
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    reader.fail(
      'url',
      `must be a postgres:// or postgresql:// url, got ${shownValue(targetOf(url))}`,
    );
  }
  const listenUrl = reader.raw('listenUrl') ?? url;
  if (typeof listenUrl !== 'string' || !/^postgres(ql)?:\/\//i.test(listenUrl.trim())) {
    reader.fail(
      'listenUrl',
      `must be a postgres:// or postgresql:// url (the database of url, reached directly), got ${shownValue(typeof listenUrl === 'string' ? targetOf(listenUrl) : listenUrl)}`,
    );
  }
  const schema = reader.raw('schema') ?? 'threadmill';
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    reader.fail(
      'schema',
      `must be 1-63 lower-case letters, digits or "_", not starting with a digit, got ${shownValue(schema)}`,
    );
  }
  return {
    ...reader.common(),
    schema: schema as string,
    poolSize: reader.wholeNumber('poolSize', 10, 1),
    commandTimeout: reader.milliseconds('commandTimeout', 10_000),
    migrate: reader.flag('migrate', true),
    listenUrl: (listenUrl as string).trim(),
    url,
    target: targetOf(url),
    listenTarget: targetOf((listenUrl as string).trim()),
    queues: reader.queues,
  };
}
