import type { PoolInfo, PoolStatus } from '../core/task-listing';

/** Most pools `pools()` lists: pools are few, but a read must stay bounded. */
export const POOLS_LISTED_MAX = 1000;

/** A pool as a store keeps it, times in ms on the store's clock. */
export interface StoredPool {
  readonly id: string;
  /** Its heartbeat deadline. */
  readonly deadlineMs: number;
  /** Its last beat; null when the store does not know (a beat of an older release). */
  readonly beatAtMs: number | null;
  /** Its info as encodePoolInfo wrote it; null when it beat without. */
  readonly info: string | null;
  /** Running tasks it holds. */
  readonly held: number;
}

/** The stored text of a pool's info (JSON, startedAt in epoch ms). */
export function encodePoolInfo(info: PoolInfo): string {
  return JSON.stringify({
    host: info.host,
    pid: info.pid,
    children: info.children,
    slots: info.slots,
    queues: info.queues,
    startedAt: info.startedAt.getTime(),
  });
}

/** A pool's info from its stored text; null when there is none or it cannot be read. */
export function decodePoolInfo(text: string | null): PoolInfo | null {
  if (text === null || text === '') return null;
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    const { host, pid, children, slots, queues, startedAt } = json;
    if (
      typeof host !== 'string' ||
      typeof pid !== 'number' ||
      typeof children !== 'number' ||
      typeof slots !== 'number' ||
      !Array.isArray(queues) ||
      !queues.every((queue) => typeof queue === 'string') ||
      typeof startedAt !== 'number'
    ) {
      return null;
    }
    return {
      host,
      pid,
      children,
      slots,
      queues: queues,
      startedAt: new Date(startedAt),
    };
  } catch {
    return null;
  }
}

/**
 * The statuses of stored pools, by id. Alive is decided on the store's
 * clock (`storeNowMs`), as the maintenance pass decides it; the times are
 * then moved to the reader's clock (`localNowMs`), so the age of a beat
 * reads right on a host whose clock is off from the store's.
 */
export function poolStatuses(
  pools: readonly StoredPool[],
  storeNowMs: number,
  localNowMs: number = storeNowMs,
): PoolStatus[] {
  const shift = localNowMs - storeNowMs;
  return [...pools]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((pool) => {
      const beatAtMs = pool.beatAtMs ?? pool.deadlineMs;
      const info = decodePoolInfo(pool.info) ?? {
        host: '',
        pid: 0,
        children: 0,
        slots: 0,
        queues: [],
        startedAt: new Date(beatAtMs + shift),
      };
      return {
        ...info,
        id: pool.id,
        beatAt: new Date(beatAtMs + shift),
        expiresAt: new Date(pool.deadlineMs + shift),
        alive: pool.deadlineMs > storeNowMs,
        held: pool.held,
      };
    });
}
