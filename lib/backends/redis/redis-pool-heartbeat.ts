import { PoolHeartbeatLapsedError } from '../../core/errors/pool-heartbeat-lapsed.error';
import { poolHeartbeatLapsed, poolHeartbeatResumed } from '../../core/threadmill.messages';
import type { RedisAliasContext } from './redis-alias-context';
import { ANY_POOL, type PoolHint } from './redis-script-types';

/**
 * The pools one RedisBackend instance acts for: their heartbeats (beat,
 * retire), which pool its acknowledgements leave (`hint`), and which pools
 * were refused leases because their heartbeat had lapsed by Redis's clock.
 *
 * @internal
 */
export class RedisPoolHeartbeat {
  /**
   * Whose pool task set this instance's acknowledgements leave: '' until it
   * acquires or beats for a pool, that pool's id after (a pool's processes
   * each have their own instance), ANY_POOL once it has seen two pools.
   */
  private poolHint: PoolHint = '';
  /** Pools this instance was refused leases for (heartbeat lapsed), and by how much (ms; null: none). */
  private readonly lapsedPools = new Map<string, number | null>();

  constructor(private readonly context: RedisAliasContext) {}

  /** The pool the stores of this instance leave; see PoolHint. */
  get hint(): PoolHint {
    return this.poolHint;
  }

  /** Alive until Redis's time plus `ttlMs` (see beatPool-1.lua), whatever this host's clock says. */
  async beat(poolId: string, ttlMs: number): Promise<void> {
    this.context.guard.assertOpen();
    this.note(poolId);
    await this.context.connection.run(() =>
      this.context.scripts.beatPool(this.context.keys.pools, poolId, ttlMs),
    );
  }

  async retire(poolId: string): Promise<void> {
    this.context.guard.assertOpen();
    await this.context.connection.run(() => this.context.maintenance.forgetPool(poolId, true));
  }

  /** Notes that this instance acts for `poolId` (it acquires or beats for it). */
  note(poolId: string): void {
    if (this.poolHint === '') this.poolHint = poolId;
    else if (this.poolHint !== poolId) this.poolHint = ANY_POOL;
  }

  /** Logs once when a pool's leases are refused (`lapsedMs` defined) and once when they resume. */
  noteLeaseState(poolId: string, lapsedMs: number | null | undefined): void {
    if (poolId === '') return;
    if (lapsedMs !== undefined) {
      if (!this.lapsedPools.has(poolId)) {
        this.context.logger.warn(poolHeartbeatLapsed(this.context.alias, poolId, lapsedMs));
      }
      this.lapsedPools.set(poolId, lapsedMs);
    } else if (this.lapsedPools.delete(poolId)) {
      this.context.logger.log(poolHeartbeatResumed(this.context.alias, poolId));
    }
  }

  /** The error of an acquire refused because `poolId`'s heartbeat lapsed, with by how much. */
  lapsedError(poolId: string): PoolHeartbeatLapsedError {
    return new PoolHeartbeatLapsedError(
      poolHeartbeatLapsed(this.context.alias, poolId, this.lapsedPools.get(poolId) ?? null),
    );
  }
}
