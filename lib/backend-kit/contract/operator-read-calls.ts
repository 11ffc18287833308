import { recordWith } from '../../core/record-with';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import { readyRecord, type ReadyRecordFields } from './ready-record';

/** The calls the operators' read contracts make tasks with. */
export interface OperatorReadCalls {
  /** A ready `contract.echo` record of the subject's alias. */
  record(fields?: ReadyRecordFields): TaskRecord;
  /** Leases up to `max` of `default`, for `poolId` when given. */
  acquire(max: number, poolId?: string): Promise<TaskRecord[]>;
  /** A running record finished SUCCESSFUL now. */
  succeeded(running: TaskRecord): TaskRecord;
}

export function operatorReadCalls(
  subject: () => { backend: TaskBackend; alias: string },
): OperatorReadCalls {
  return {
    record: (fields = {}) => readyRecord(subject().alias, { name: 'contract.echo', ...fields }),
    acquire: (max, poolId) =>
      subject().backend.leases.acquire(['default'], {
        workerId: 'host:1-0',
        max,
        timeoutMs: 0,
        poolId,
      }),
    succeeded: (running) =>
      recordWith(running, { status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date() }),
  };
}
