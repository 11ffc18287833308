import { RETRYABLE_BY_HAND } from '../../core/manual-retry';
import { manualRetryRecord } from '../../lifecycle/manual-retry';
import type { TaskBackend } from '../../core/task-backend.interface';
import { TaskResult } from '../../core/task-result';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { BackendRegistry } from '../../backends/backend.registry';
import { TaskControlService, type TaskRetry } from '../../task/task-control.service';

/**
 * Test-only: retry as it once was, reading again after a lost store and
 * retrying whatever attempt it then finds, so a loser could retry the
 * winner's new attempt once that failed too. The interleaving contract
 * must catch it.
 */
export class LoopingRetryControl extends TaskControlService {
  private readonly registry: BackendRegistry;

  constructor(private readonly backend: TaskBackend) {
    const registry = new BackendRegistry([backend]);
    super(registry);
    this.registry = registry;
  }

  override async retry<T = unknown>(id: string): Promise<TaskRetry<T>> {
    for (;;) {
      const record = await this.backend.tasks.getResult(id);
      const result = new TaskResult<T>(record, this.registry.sourceFor(this.backend.alias));
      if (record.status === TaskResultStatus.SUCCESSFUL) return { outcome: 'successful', result };
      if (!RETRYABLE_BY_HAND.has(record.status)) return { outcome: 'not-final', result };
      const retried = manualRetryRecord(record);
      if (await this.backend.control.retryFinished(record, retried)) {
        return {
          outcome: 'retried',
          result: new TaskResult<T>(retried, this.registry.sourceFor(this.backend.alias)),
        };
      }
    }
  }
}
