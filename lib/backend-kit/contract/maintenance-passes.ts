import type { MaintenancePassReport } from '../../core/ports/maintenance-store.port';
import type { TaskBackend } from '../../core/task-backend.interface';
import { runMaintenancePass } from '../../lifecycle/maintenance-pass';

type CountedStep = 'promoted' | 'reaped' | 'recovered' | 'trimmed';

/**
 * Runs maintenance passes until they have done `total` of one step, and
 * returns how many they did. A due time or a retention end is counted on the
 * backend's clock from the moment the backend stored the task, a little after
 * the test took its own time, so a test waits for the pass that does the work
 * instead of guessing how long that gap is on a busy machine.
 */
export async function passUntil(
  backend: Pick<TaskBackend, 'alias' | 'queues' | 'maintenance'>,
  step: CountedStep,
  total: number,
  { timeoutMs = 10_000 } = {},
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let done = 0;
  for (;;) {
    const report: MaintenancePassReport = await runMaintenancePass(backend);
    done += report[step];
    if (done >= total) return done;
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms: passes ${step} ${done} of ${total}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
