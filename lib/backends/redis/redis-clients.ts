import { Cluster, Redis, type RedisOptions } from 'ioredis';

import type { RedisBackendSettings } from './redis-backend-config.parser';

/** A client the backend talks through: one server or a cluster. */
export type RedisClient = Redis | Cluster;

// One quick reconnect per command: a Redis restart is ridden out, a dead Redis
// fails the command within about one connectTimeout instead of queueing it forever.
const MAX_RETRIES_PER_REQUEST = 1;
const DISCONNECT_TIMEOUT_MS = 100;
const reconnectDelay = (attempt: number): number => Math.min(attempt * 100, 2000);
const IN_FLIGHT_LOST =
  'the connection dropped before the reply: the command may or may not have been applied';

/**
 * The shared client of an alias that connects by itself (url, clusterNodes
 * or sentinel), lazily, with the timeouts and reconnects its settings ask
 * for. A client handed in is not made here.
 *
 * @internal
 */
export function createRedisClient(settings: RedisBackendSettings): RedisClient | null {
  const { target, connectTimeout, commandTimeout, redisOptions } = settings;
  const common: RedisOptions = {
    lazyConnect: true,
    connectTimeout,
    commandTimeout,
    maxRetriesPerRequest: MAX_RETRIES_PER_REQUEST,
    // ioredis arms this timer on disconnect and clears it only when the
    // socket closes, which a refused socket already did: with the 2 s
    // default, close() left the process alive for 2 s.
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
  };
  if (target.kind === 'cluster') {
    return new Cluster(target.nodes, {
      lazyConnect: true,
      enableOfflineQueue: true,
      clusterRetryStrategy: reconnectDelay,
      redisOptions: { ...common, ...target.redisOptions, ...redisOptions },
    });
  }
  const single: RedisOptions = {
    ...common,
    enableOfflineQueue: true,
    retryStrategy: reconnectDelay,
    // See failInFlight: a command whose reply died with the connection is not sent again.
    autoResendUnfulfilledCommands: false,
  };
  if (target.kind === 'url') return new Redis(target.url, { ...single, ...redisOptions });
  if (target.kind === 'sentinel') {
    return new Redis({
      ...single,
      sentinels: target.sentinels,
      name: target.name,
      ...target.redisOptions,
      ...redisOptions,
    });
  }
  return null;
}

/**
 * A blocking client for idle waits: a copy of `client`'s settings, with
 * `commandTimeout` and commands queued until connected even if a handed-in
 * client refuses offline commands.
 *
 * @internal
 */
export function blockingCopy(client: RedisClient, commandTimeout: number): RedisClient {
  if (client instanceof Cluster) {
    return client.duplicate(undefined, {
      redisOptions: { ...client.options.redisOptions, commandTimeout },
    });
  }
  return client.duplicate({
    commandTimeout,
    lazyConnect: true,
    enableOfflineQueue: true,
    // A lease sent behind a BLPOP must not run twice either (see failInFlight).
    autoResendUnfulfilledCommands: false,
  });
}

/** A client for subscriber mode, which takes a connection of its own. */
export function subscriberCopy(client: RedisClient): RedisClient {
  return client instanceof Cluster
    ? client.duplicate()
    : client.duplicate({ lazyConnect: true, enableOfflineQueue: true });
}

/**
 * Fails the commands still waiting for a reply when the connection drops.
 * Redis may have run them (a script ran, its reply was lost), so sending
 * them again would run them twice: an enqueue would be refused as a
 * duplicate id although it was stored, and a second acquire would lease
 * other tasks while the first ones stay leased to a worker that never got
 * them. Failing them says "unknown outcome" honestly and at once
 * (BackendUnavailableError), and a worker then looks for such leases.
 * Called on the client's `close` event, before any reconnect: a client
 * that would resend them (autoResendUnfulfilledCommands, a handed-in
 * client's default) keeps them in this very queue until then.
 *
 * @internal
 */
export function failInFlight(client: Redis): void {
  const inFlight = client.commandQueue;
  if (inFlight.length === 0) return;
  const lost = new Error(IN_FLIGHT_LOST);
  for (let item = inFlight.shift(); item; item = inFlight.shift()) item.command.reject(lost);
}
