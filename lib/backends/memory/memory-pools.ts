import { encodePoolInfo, type StoredPool } from '../pool-status';
import type { PoolInfo } from '../../core/task-listing';

/**
 * A MemoryBackend's worker pools: each pool's heartbeat deadline (a pool
 * past it is dead), its last beat with the info it sent, and the running
 * tasks it holds, kept until the pool is forgotten.
 *
 * @internal
 */
export class MemoryPools {
  /** Pool id -> heartbeat deadline (ms). */
  readonly deadlines = new Map<string, number>();
  /** Pool id -> its last beat (ms) and its info as encodePoolInfo wrote it. */
  private readonly beats = new Map<string, { beatAtMs: number; info: string | null }>();
  /** Pool id -> ids it holds, so recovering a dead pool costs only its own tasks. */
  private readonly claims = new Map<string, Set<string>>();

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

  /** Task `id` now held by `poolId`. */
  claim(poolId: string, id: string): void {
    let held = this.claims.get(poolId);
    if (!held) this.claims.set(poolId, (held = new Set()));
    held.add(id);
  }

  /** Task `id` no longer held by `poolId`. */
  unclaim(poolId: string, id: string): void {
    const held = this.claims.get(poolId);
    held?.delete(id);
    if (held?.size === 0) this.claims.delete(poolId);
  }

  /** The ids `poolId` holds, at most `max`. */
  held(poolId: string, max = Infinity): string[] {
    return [...(this.claims.get(poolId) ?? [])].slice(0, max);
  }

  holds(poolId: string): boolean {
    return this.claims.has(poolId);
  }

  /** Every known pool as stored, with how many running tasks each holds. */
  stored(): StoredPool[] {
    return [...this.deadlines].map(([id, deadlineMs]) => {
      const beat = this.beats.get(id);
      return {
        id,
        deadlineMs,
        beatAtMs: beat?.beatAtMs ?? null,
        info: beat?.info ?? null,
        held: this.claims.get(id)?.size ?? 0,
      };
    });
  }
}
