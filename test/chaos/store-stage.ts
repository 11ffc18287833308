import type { TaskBackend } from '../../lib/core/task-backend.interface';
import type { RunningPool } from './chaos-harness';

/**
 * Where a chaos scenario written once over the stores runs: a store of the
 * describe block's own, one alias on it with a backend for the test's reads,
 * and how to start pools there. Each store's spec file builds it from its
 * scenario (chaosScenario, postgresChaosScenario).
 */
export interface StoreStage {
  /** The store's name in the report line, e.g. 'Postgres'. */
  readonly store: string;
  readonly alias: string;
  readonly backend: Pick<TaskBackend, 'tasks' | 'reads'>;
  /** The journal file the scenario's tasks append to. */
  readonly journal: string;
  /** The environment that points the sample's pools at the store and alias. */
  readonly env: Record<string, string>;
  /** Starts a pool (a process group, killed after the describe block). */
  startPool(args: readonly string[], env: Record<string, string>): RunningPool;
}
