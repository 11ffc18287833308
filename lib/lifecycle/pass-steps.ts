import type { MaintenancePassReport } from '../core/ports/maintenance-store.port';

/** What one maintenance pass does, step by step; counting steps return how many tasks they moved. */
export interface MaintenanceSteps {
  /** Promote: due deferred tasks into their ready queues. */
  promote(): number | Promise<number>;
  /** Reap: tasks whose lease expired, retried or failed. */
  reap(): number | Promise<number>;
  /** Recover: the tasks of pools whose heartbeat lapsed, retried or failed. */
  recover(): number | Promise<number>;
  /** Trim: finished tasks past their retention (age and count), and ingress counts past the longest. */
  trim(): number | Promise<number>;
  /** When this pass ran, for health checks. */
  heartbeat(): void | Promise<void>;
}

/**
 * Runs the steps of one maintenance pass in order. A failing step is recorded in
 * the report and never stops the steps after it: one broken part of
 * the store must not stall promotion or reaping. The caller (the pool) logs
 * `failedSteps`.
 */
export async function runMaintenanceSteps(steps: MaintenanceSteps): Promise<MaintenancePassReport> {
  const report: MaintenancePassReport = {
    promoted: 0,
    reaped: 0,
    recovered: 0,
    trimmed: 0,
    failedSteps: [],
  };
  const run = async <T>(step: keyof MaintenanceSteps, fallback: T): Promise<T> => {
    try {
      return (await steps[step]()) as T;
    } catch (error) {
      report.failedSteps.push({ step, error });
      return fallback;
    }
  };
  report.promoted = await run('promote', 0);
  report.reaped = await run('reap', 0);
  report.recovered = await run('recover', 0);
  report.trimmed = await run('trim', 0);
  await run('heartbeat', undefined);
  return report;
}
