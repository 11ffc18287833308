import { createHash } from 'node:crypto';

/**
 * The names the Postgres backend uses, built in this one place: advisory
 * lock keys and LISTEN/NOTIFY channels, derived from its schema and alias,
 * and the name a process's sessions carry. Keys and channels come from a
 * hash, so any schema and alias (up to 200 characters, any script) give a
 * valid key and a channel within Postgres's 63-byte limit.
 *
 * @internal
 */
const digest = (parts: readonly string[]): Buffer =>
  createHash('sha256').update(parts.join('\u0000')).digest();

/** A signed 64-bit advisory lock key, as decimal text (`$n::bigint`). */
export function lockKey(...parts: string[]): string {
  return digest(['threadmill-lock', ...parts])
    .readBigInt64BE(0)
    .toString();
}

/**
 * What a channel carries: ready work (queue names), finished tasks, live
 * events, or tasks written to a Redis alias's outbox.
 */
export type ChannelKind = 'work' | 'finished' | 'live' | 'outbox';

/** The channel of `kind` for one alias of one schema. */
export function channelName(schema: string, alias: string, kind: ChannelKind): string {
  return `tm_${digest(['threadmill-channel', schema, alias]).toString('hex').slice(0, 32)}_${kind}`;
}

/** The lock a migration runs under: one per schema name, so concurrent starts migrate once. */
export const migrationLockKey = (schema: string): string => lockKey('migrate', schema);

/** The session lock its holder relays a Redis alias's outbox under: one relay at a time. */
export const outboxRelayLockKey = (schema: string, alias: string): string =>
  lockKey('outbox-relay', schema, alias);

/**
 * The application_name of process `pid`'s sessions (the fallback its pool
 * sets, unless the url or PGAPPNAME names them otherwise): how a pool finds
 * a dead child's sessions in pg_stat_activity.
 */
export const sessionName = (pid: number): string => `threadmill pid ${pid}`;
