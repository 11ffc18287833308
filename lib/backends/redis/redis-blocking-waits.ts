import { Cluster } from 'ioredis';

import type { RedisClient } from './redis-clients';

/**
 * How an idle wait ended. `token`: something became ready. `timeout`: nothing
 * did within this wait. `aborted`: the signal fired or the backend closed.
 */
export type WakeOutcome = 'token' | 'timeout' | 'aborted';

/** How an idle wait ended, and what the call sent behind it replied. */
export interface Wake<T> {
  outcome: WakeOutcome;
  /** The follow-up's reply; undefined when it was not sent (a Cluster) or its reply was lost. */
  followed?: T;
  /** The wait was ended by cutting the connection: a token Redis handed over in that instant is lost. */
  tokenMayBeLost: boolean;
}

/**
 * What the waits use of their alias's RedisConnection, which makes their
 * blocking clients and holds the waits in turn.
 */
export interface BlockerSource {
  /** The shared client, which sends CLIENT UNBLOCK. */
  readonly client: RedisClient;
  /** Once closed, every wait ends as aborted. */
  readonly closed: boolean;
  /** A new blocking client; `onClose` is told each time its connection closes. */
  createBlocker(onClose: (blocker: RedisClient) => void): RedisClient;
  /** What to throw for a failed Redis call. */
  failure(error: unknown): unknown;
}

/** Runs on the blocking connection right behind its BLPOP. */
export type FollowUp<T> = (blocker: RedisClient) => Promise<T>;

/** Longest single BLPOP; a longer wait is several in a row. */
export const BLOCK_SLICE_MS = 30_000;

/** Between tries of CLIENT UNBLOCK that came before the BLPOP it was meant for. */
const UNBLOCK_RETRY_MS = 5;
const UNBLOCK_TRIES = 100;

/**
 * The idle waits of one RedisBackend alias: BLPOP on wake-up lists, each on
 * a blocking connection of its own (one per concurrent wait, reused), since
 * a blocked connection can do nothing else. The connections come from the
 * alias's RedisConnection, which closes them with its own.
 *
 * @internal
 */
export class RedisBlockingWaits {
  private readonly idleBlockers: RedisClient[] = [];
  private readonly busyBlockers = new Set<RedisClient>();
  /** Each blocking connection's CLIENT ID, asked once per connection (forgotten when it closes). */
  private readonly blockerIds = new WeakMap<RedisClient, Promise<number>>();

  constructor(private readonly connection: BlockerSource) {}

  /**
   * Blocks until a token arrives on one of the wake-up lists, `timeoutMs`
   * passes (at most one BLPOP slice: callers loop) or `signal` aborts; costs
   * one BLPOP however long it waits. `follow` is sent right behind the BLPOP
   * on the same connection, so Redis runs it the moment the wait ends, with
   * no round trip back to us first: an idle worker's pickup is one hop
   * shorter. A Cluster client routes each command alone, so there nothing is
   * sent behind and the caller follows up itself. An abort ends the wait with
   * CLIENT UNBLOCK from the main connection, so the follow-up still runs and
   * its reply is not lost; only when that cannot be done is the blocking
   * connection cut.
   */
  async waitForWake<T>(
    keys: readonly string[],
    timeoutMs: number,
    signal: AbortSignal | undefined,
    follow: FollowUp<T>,
  ): Promise<Wake<T>> {
    const { connection } = this;
    if (signal?.aborted || connection.closed) return { outcome: 'aborted', tokenMayBeLost: false };
    if (timeoutMs <= 0) return { outcome: 'timeout', tokenMayBeLost: false };
    const blocker =
      this.idleBlockers.pop() ??
      connection.createBlocker((closed) => this.blockerIds.delete(closed));
    this.busyBlockers.add(blocker);
    const pipelined = !(blocker instanceof Cluster);
    let aborted = false;
    let cut = false;
    let settled = false;
    let blockerId: Promise<number> | null = null;
    const cutWait = (): void => {
      if (settled) return;
      cut = true;
      blocker.disconnect();
    };
    const onAbort = (): void => {
      aborted = true;
      if (blockerId === null || connection.client.status !== 'ready') {
        cutWait();
        return;
      }
      this.unblock(blockerId, () => settled).then((unblocked) => {
        if (!unblocked) cutWait();
      }, cutWait);
    };
    try {
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) return { outcome: 'aborted', tokenMayBeLost: false };
      // See RedisConnection.createBlocker for why a single BLPOP may not wait unbounded.
      const slice = Math.max(Math.min(timeoutMs, BLOCK_SLICE_MS), 1);
      if (pipelined) blockerId = this.blockerId(blocker);
      // BLPOP takes seconds (decimals allowed since Redis 6); 0 would mean forever.
      const popping = blocker.blpop(...keys, slice / 1000);
      const [popped, followed] = await Promise.all([
        popping,
        pipelined ? follow(blocker) : undefined,
      ]);
      settled = true;
      if (aborted || connection.closed) {
        return { outcome: 'aborted', followed, tokenMayBeLost: false };
      }
      return { outcome: popped === null ? 'timeout' : 'token', followed, tokenMayBeLost: false };
    } catch (error) {
      settled = true;
      if (!aborted && !connection.closed) throw connection.failure(error);
      return { outcome: 'aborted', tokenMayBeLost: true };
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.busyBlockers.delete(blocker);
      if (cut || connection.closed) blocker.disconnect();
      else this.idleBlockers.push(blocker);
    }
  }

  /** Cuts every blocking connection, idle or waiting: the alias is closing. */
  disconnectAll(): void {
    for (const blocker of [...this.idleBlockers.splice(0), ...this.busyBlockers]) {
      blocker.disconnect();
    }
    this.busyBlockers.clear();
  }

  /**
   * Ends a blocked BLPOP with CLIENT UNBLOCK (the reply is a timeout, and
   * what was sent behind it runs). An UNBLOCK can reach Redis before the
   * BLPOP it is meant for, so it is tried again until the wait has ended.
   * False when it could not be done.
   */
  private async unblock(blockerId: Promise<number>, ended: () => boolean): Promise<boolean> {
    const id = await blockerId;
    for (let tries = 0; tries < UNBLOCK_TRIES && !ended(); tries++) {
      if ((await this.connection.client.client('UNBLOCK', id)) === 1) return true;
      await new Promise((resolve) => setTimeout(resolve, UNBLOCK_RETRY_MS));
    }
    return ended();
  }

  /**
   * The blocking connection's id, for CLIENT UNBLOCK; sent ahead of its first
   * wait. A reconnected connection has a new id (and after a Redis restart an
   * old one may name another client), so it is forgotten on close.
   */
  private blockerId(blocker: RedisClient): Promise<number> {
    let id = this.blockerIds.get(blocker);
    if (!id) {
      id = blocker.client('ID');
      id.catch(() => undefined); // only an abort needs it; a dead connection fails the BLPOP
      this.blockerIds.set(blocker, id);
    }
    return id;
  }
}
