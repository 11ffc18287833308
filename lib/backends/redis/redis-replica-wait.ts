import type { Redis } from 'ioredis';

import { ReplicasBehindError } from '../../core/errors/replicas-behind.error';
import { replicasBehind, replicasLostConnection } from './replication.messages';
import type { ReplicaWaitSettings } from './redis-backend-config.parser';
import type { RedisClient } from './redis-clients';

/** What a WAIT answered, and down which socket its reply came. */
interface WaitReply {
  confirmed: number;
  stream: unknown;
}

/** The WAITs of one connection: the one out, and the one gathering callers for after it. */
interface ConnectionWaits {
  /** Settles once the WAIT sent last has its reply (or failed). */
  out: Promise<unknown>;
  /** The WAIT to be sent once `out` settles; null when none gathers. */
  gathering: Promise<WaitReply> | null;
}

/**
 * `waitForReplicas` of one RedisBackend alias: after a task write, `WAIT
 * count timeoutMs` down the connection that wrote (WAIT counts that
 * connection's writes only), before the write is answered. Callers share
 * WAITs, as a group commit: one is out per connection at a time, and every
 * write answered meanwhile waits for the next, which covers them all (it is
 * sent after their replies came). So a busy alias sends far fewer WAITs than
 * it writes, and replicas that fall behind cost each connection one WAIT per
 * `timeoutMs`, not one per write. Off (no setting), a write goes out alone.
 *
 * @internal
 */
export class RedisReplicaWait {
  private readonly waits = new WeakMap<RedisClient, ConnectionWaits>();

  constructor(
    private readonly settings: ReplicaWaitSettings | null,
    private readonly alias: string,
    /** The server in use, for the message. */
    private readonly target: () => string,
  ) {}

  /** Whether writes wait for replicas. */
  get on(): boolean {
    return this.settings !== null;
  }

  /**
   * `write` on `client`, then its replicas' confirmation (see confirm);
   * just `write` when off. `what` names the write for the error.
   */
  async confirmed<T>(client: RedisClient, what: () => string, write: () => Promise<T>): Promise<T> {
    if (this.settings === null) return write();
    const reply = await write();
    await this.confirm(client, what);
    return reply;
  }

  /**
   * Resolves once `count` replicas have every write `client` had answered
   * before this call. Throws ReplicasBehindError when fewer confirmed within
   * `timeoutMs`, and a connection error when the WAIT failed or went down
   * another connection than the writes (one made again meanwhile, whose
   * WAIT would vouch for nothing).
   */
  async confirm(client: RedisClient, what: () => string): Promise<void> {
    if (this.settings === null) return;
    const { count, timeoutMs } = this.settings;
    // Only a single server gets here: the config refuses waitForReplicas on a Cluster.
    const redis = client as Redis;
    const stream: unknown = redis.stream;
    const reply = await this.nextWait(redis, count, timeoutMs);
    if (reply.stream !== stream) throw new Error(replicasLostConnection());
    if (reply.confirmed < count) {
      throw new ReplicasBehindError(
        replicasBehind(this.alias, this.target(), what(), reply.confirmed, count, timeoutMs),
        reply.confirmed,
        count,
      );
    }
  }

  /** The WAIT a caller whose write was just answered joins: the gathering one, or a new one. */
  private nextWait(client: Redis, count: number, timeoutMs: number): Promise<WaitReply> {
    let waits = this.waits.get(client);
    if (!waits) {
      waits = { out: Promise.resolve(), gathering: null };
      this.waits.set(client, waits);
    }
    if (waits.gathering) return waits.gathering;
    const state = waits;
    const gathering = state.out.then(async () => {
      // Sent now: whoever comes after gathers for the next one.
      state.gathering = null;
      const confirmed = await client.wait(count, timeoutMs);
      // The socket the reply came down, which is the one WAIT went down.
      return { confirmed, stream: client.stream };
    });
    state.gathering = gathering;
    state.out = gathering.catch(() => undefined);
    return gathering;
  }
}
