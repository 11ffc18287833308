import { shownValue } from '../backend-config.reader';
import type { OutboxPool, RedisOutboxOptions } from './outbox-options.interface';

/** The defaults of RedisOutboxOptions. */
export const OUTBOX_DEFAULTS = {
  schema: 'threadmill',
  pollInterval: 10_000,
  markWindow: 24 * 3_600_000,
  batchSize: 500,
  relay: true,
} as const;

/** The same schema names as the Postgres backend's: used unquoted in every statement. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

const OWN_FIELDS = ['url', 'pool', 'schema', 'pollInterval', 'markWindow', 'batchSize', 'relay'];

/** A validated `outbox` option, every default applied. @internal */
export interface OutboxSettings {
  /** Where the connections go: a url, or the app's pool (its settings). */
  readonly target: { url: string } | { pool: OutboxPool };
  readonly schema: string;
  readonly pollIntervalMs: number;
  readonly markWindowMs: number;
  readonly batchSize: number;
  readonly relay: boolean;
}

/**
 * Reads the `outbox` option of a RedisBackend alias; `fail` throws the
 * alias's InvalidBackendConfigError naming the field. Null when it is absent.
 *
 * @internal
 */
export function parseOutboxOptions(
  given: unknown,
  fail: (option: string, problem: string) => never,
): OutboxSettings | null {
  if (given === undefined) return null;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    return fail('outbox', 'must be { url } or { pool }, with schema and the relay settings');
  }
  const options = given as RedisOutboxOptions & Record<string, unknown>;
  const unknown = Object.keys(options).filter((key) => !OWN_FIELDS.includes(key));
  if (unknown.length > 0) {
    fail('outbox', `has ${unknown.join(', ')}; its fields are ${OWN_FIELDS.join(', ')}`);
  }
  const { url, pool } = options;
  if ((url === undefined) === (pool === undefined)) {
    fail('outbox', 'needs exactly one of url (the app Postgres) and pool (its pg Pool)');
  }
  if (url !== undefined && (typeof url !== 'string' || !/^postgres(ql)?:\/\//.test(url))) {
    fail('outbox.url', 'must be a postgres:// url');
  }
  if (pool !== undefined && typeof (pool as { connect?: unknown }).connect !== 'function') {
    fail('outbox.pool', 'must be a pg Pool');
  }
  const schema = options.schema ?? OUTBOX_DEFAULTS.schema;
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    fail(
      'outbox.schema',
      `must be 1-63 lower-case letters, digits or "_", not starting with a digit, got ${shownValue(schema)}`,
    );
  }
  const whole = (field: keyof typeof OUTBOX_DEFAULTS & keyof RedisOutboxOptions): number => {
    const value = options[field] ?? OUTBOX_DEFAULTS[field];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      fail(`outbox.${field}`, `must be a positive whole number, got ${shownValue(value)}`);
    }
    return value;
  };
  const relay = options.relay ?? OUTBOX_DEFAULTS.relay;
  if (typeof relay !== 'boolean') fail('outbox.relay', `must be true or false`);
  return {
    target: url !== undefined ? { url } : { pool: pool as OutboxPool },
    schema,
    pollIntervalMs: whole('pollInterval'),
    markWindowMs: whole('markWindow'),
    batchSize: whole('batchSize'),
    relay,
  };
}
