import { encodePoolInfo, type StoredPool } from '../pool-status';
import type { PoolInfo } from '../../core/task-listing';

/**
 * The heartbeats of a MemoryBackend's worker pools: each pool's deadline
 * (a pool past it is dead), and its last beat with the info it sent, kept
 * until the pool is forgotten.
 *
 * @internal
 */
export class MemoryPoolBeats {
  /** Pool id -> heartbeat deadline (ms). */
  readonly deadlines = new Map<string, number>();
  /** Pool id -> its last beat (ms) and its info as encodePoolInfo wrote it. */
  private readonly beats = new Map<string, { beatAtMs: number; info: string | null }>();

  /** Alive until `deadline`; info replaced when sent, kept otherwise. */
  beat(poolId: string, deadline: number, now: number, info?: PoolInfo): void {
    this.deadlines.set(poolId, deadline);
    const kept = this.beats.get(poolId)?.info ?? null;
    this.beats.set(poolId, { beatAtMs: now, info: info ? encodePoolInfo(info) : kept });
  }

  /** Dead from `now`, so the next pass recovers what it holds. */
  lapse(poolId: string, now: number): void {
    this.deadlines.set(poolId, now);
  }

  forget(poolId: string): void {
    this.deadlines.delete(poolId);
    this.beats.delete(poolId);
  }

  /** Every known pool as stored, `held` telling how many running tasks each holds. */
  stored(held: (poolId: string) => number): StoredPool[] {
    return [...this.deadlines].map(([id, deadlineMs]) => {
      const beat = this.beats.get(id);
      return {
        id,
        deadlineMs,
        beatAtMs: beat?.beatAtMs ?? null,
        info: beat?.info ?? null,
        held: held(id),
      };
    });
  }
}
