import { storeKeepsNothing } from './store.messages';

/**
 * How a store keeps its data over a restart of it: `log` writes every change
 * to disk as it happens (Redis's AOF), `snapshots` saves it now and then
 * (Redis's RDB; a crash loses what changed since the last), `none` keeps
 * nothing (a restart empties it).
 *
 * @publicApi
 */
export type StorePersistence = 'log' | 'snapshots' | 'none';

/**
 * What a backend found of its store when it last reached it, known without
 * a round trip (see TaskBackend.storeCondition).
 *
 * @publicApi
 */
export interface StoreCondition {
  /** How the store keeps its data; null until the backend first reached it. */
  readonly persistence: StorePersistence | null;
  /**
   * Set once this process found the store's data gone (a restart of a store
   * that keeps nothing, a flush): what happened, in the backend's words. It
   * stays set while the process runs: what was lost stays lost.
   */
  readonly dataLost: string | null;
}

/** What a health check makes of a StoreCondition: reasons to report down, and warnings (degraded). */
export interface StoreHealth {
  readonly down: string[];
  readonly warnings: string[];
}

/**
 * The one rule the health checks (the pool's endpoint, ThreadmillHealthIndicator)
 * apply to a store: data found gone is down, since tasks acknowledged to
 * their producers were lost and someone must act; a store that keeps nothing
 * on disk is up but degraded, with a warning, since nothing was lost yet.
 * Snapshots only are a risk the backend names when it connects, not a fault.
 */
export function storeHealth(alias: string, condition: StoreCondition | null): StoreHealth {
  if (condition === null) return { down: [], warnings: [] };
  return {
    down: condition.dataLost === null ? [] : [condition.dataLost],
    warnings: condition.persistence === 'none' ? [storeKeepsNothing(alias)] : [],
  };
}
