import type { ControlStore } from '../core/ports/control-store.port';
import type { FeedStore } from '../core/ports/feed-store.port';
import type { LeaseStore } from '../core/ports/lease-store.port';
import type { MaintenanceStore } from '../core/ports/maintenance-store.port';
import type { PoolStore } from '../core/ports/pool-store.port';
import type { ReadStore } from '../core/ports/read-store.port';
import type { ScheduleStore } from '../core/ports/schedule-store.port';
import type { TaskStore } from '../core/ports/task-store.port';
import type { BackendParts, StoreGuard } from './store-guard';

/**
 * What every backend class shares: its parts, each behind the one guard. A
 * backend builds its parts from its own pieces and exposes them once.
 */
export abstract class PartsBackend {
  declare readonly tasks: TaskStore;
  declare readonly leases: LeaseStore;
  declare readonly control: ControlStore;
  declare readonly reads: ReadStore;
  declare readonly feeds: FeedStore;
  declare readonly pools: PoolStore;
  declare readonly schedules: ScheduleStore;
  declare readonly maintenance: MaintenanceStore;

  /** Puts `parts` behind `guard` and makes them this backend's. */
  protected expose(guard: StoreGuard, parts: BackendParts): void {
    Object.assign(this, guard.guard(parts));
  }
}
