import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';

/** A holder's answer to "start this leased task", and a caller's cancel: the real ones or a variant. */
export interface StartControls {
  /**
   * Starts `record` unless a cancel came first, calling `started` the moment
   * it starts; resolves once whatever it stored is stored.
   */
  start(record: TaskRecord, started: () => void): Promise<void>;
  /** Cancels `id`: the outcome, once the answer is given. */
  cancel(id: string): Promise<string>;
}

/**
 * Builds a caller's controls over its (gated) backend, leasing for pool
 * `poolId`; `shelf` holds its leases not started yet (what a cancel may end
 * unstarted), as a child's prefetch shelf does.
 */
export type StartControlsFactory = (
  backend: TaskBackend,
  poolId: string,
  shelf: TaskRecord[],
) => StartControls;
