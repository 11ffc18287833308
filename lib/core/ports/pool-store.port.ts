import type { PoolInfo, PoolStatus } from '../task-listing';

/**
 * What a pool's main process (or an in-process worker) keeps in the store
 * about itself, and what health and the dashboard read of every pool.
 */
export interface PoolStore {
  /**
   * Pool `poolId` is alive until `ttlMs` from now. Once that passes without
   * another beat, the next maintenance pass of any pool recovers the tasks it
   * holds. `info` (the pool's main process sends it) is stored with the beat
   * for `pools.list`; a beat without it keeps the info stored before.
   */
  beat(poolId: string, ttlMs: number, info?: PoolInfo): Promise<void>;
  /** Pool `poolId` stopped cleanly (it holds nothing): forget its heartbeat and info. */
  retire(poolId: string): Promise<void>;
  /**
   * The pools the store knows, by id: alive ones, and lapsed ones not yet
   * recovered and forgotten, each with its last beat, deadline, info and
   * how many running tasks it holds. Bounded (POOLS_LISTED_MAX).
   */
  list(): Promise<PoolStatus[]>;
  /**
   * Claims `role` for `holder` until `ttlMs` from now, in one atomic step:
   * true when `holder` holds it now (it was free, its lease had run out, or
   * `holder` held it already and renewed it), false while another holder's
   * lease runs. A holder that stops claiming loses the role once its lease
   * runs out, so another takes over (the store gauges of the metrics).
   */
  claimRole(role: string, holder: string, ttlMs: number): Promise<boolean>;
  /**
   * Ends every session the dead process `pid` of this machine still has on
   * the store, and resolves true once none is left: each call it had under
   * way has then committed or rolled back, so nothing of it can land later.
   * False when the store cannot tell that process's sessions apart (they
   * are not named as this library names them), or some were still there
   * after `waitMs`. Only a store whose calls can outlive their caller has
   * it (Postgres: a server finishes a statement before it notices the
   * closed connection); one where nothing of a dead process can land later
   * resolves true at once (SQLite).
   */
  endSessionsOf?(pid: number, waitMs: number): Promise<boolean>;
}
