import { PoolHeartbeatLapsedError } from '../../core/errors/pool-heartbeat-lapsed.error';
import { POOLS_LISTED_MAX, encodePoolInfo, poolStatuses } from '../pool-status';
import type { PoolInfo, PoolStatus } from '../../core/task-listing';
import { poolHeartbeatLapsed, poolHeartbeatResumed } from '../../core/threadmill.messages';
import type { RedisAliasContext } from './redis-alias-context';
import { RedisListingScripts } from './redis-listing-scripts';
import { ANY_POOL, type PoolHint } from './redis-script-types';

/**
 * The pools one RedisBackend instance acts for: their heartbeats (beat,
 * retire), which pool its acknowledgements leave (`hint`), and which pools
 * were refused leases because their heartbeat had lapsed by Redis's clock;
 * and the list of every pool of the alias (`list`).
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

  private readonly listing: RedisListingScripts;

  constructor(private readonly context: RedisAliasContext) {
    this.listing = new RedisListingScripts(context.connection.client);
  }

  /** The pool the stores of this instance leave; see PoolHint. */
  get hint(): PoolHint {
    return this.poolHint;
  }

  /** Alive until Redis's time plus `ttlMs` (see beatPool-2.lua), whatever this host's clock says. */
  async beat(poolId: string, ttlMs: number, info: PoolInfo | undefined): Promise<void> {
    this.note(poolId);
    const { keys } = this.context;
    await this.context.connection.run(() =>
      this.context.scripts.beatPool(
        { poolsKey: keys.pools, poolInfoKey: keys.poolInfo },
        { poolId, ttlMs, info: info ? encodePoolInfo(info) : '' },
      ),
    );
  }

  /** Every pool the alias knows, alive or lapsed (see readPools-2.lua), times on this host's clock. */
  async list(): Promise<PoolStatus[]> {
    const { keys } = this.context;
    const { nowMs, pools } = await this.context.connection.run(() =>
      this.listing.readPools(
        { poolsKey: keys.pools, poolInfoKey: keys.poolInfo },
        { poolTasksPrefix: keys.poolTasksPrefix, max: POOLS_LISTED_MAX },
      ),
    );
    const stored = pools.map(({ id, deadlineMs, beat, held }) => {
      // `<beat ms> <info JSON>`, the info empty when the pool never sent any.
      const space = beat === null ? -1 : beat.indexOf(' ');
      return {
        id,
        deadlineMs,
        beatAtMs: beat === null ? null : Number(space < 0 ? beat : beat.slice(0, space)),
        info: beat === null || space < 0 ? null : beat.slice(space + 1),
        held,
      };
    });
    return poolStatuses(stored, nowMs, Date.now());
  }

  async retire(poolId: string): Promise<void> {
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
