import { readyRecord as makeReadyRecord } from '../../helpers/ready-record';
import {
  TaskResultDoesNotExist,
  TaskResultStatus,
  acknowledgeThenAcquire,
  type AcknowledgeAndAcquireResult,
  type AcknowledgeOutcome,
  type AcquireOptions,
  type BackendTelemetry,
  type MaintenancePassReport,
  type QueueSegment,
  type TaskBackend,
  type TaskRecord,
} from '../../../lib/core';

/** A RUNNING record leased to `workerId`, as acquire leaves it. */
export function runningRecord(id: string, workerId: string): TaskRecord {
  return {
    ...readyRecord(id),
    status: TaskResultStatus.RUNNING,
    startedAt: new Date(),
    lastAttemptedAt: new Date(),
    workerIds: [workerId],
  };
}

/** A READY record of `name` with these args, as enqueue would store it. */
export const readyRecord = (id: string, name = 'test.task', args: unknown[] = []): TaskRecord =>
  makeReadyRecord('fake', { id, name, args, enqueuedAt: new Date(0) });

/**
 * Just enough of a backend for the worker's unit tests, in memory: acquire
 * takes from `ready` (and, with a timeout, waits for the abort signal when it
 * is empty), acknowledge and release record what they were given.
 */
export class FakeWorkerBackend implements TaskBackend {
  readonly alias = 'fake';
  readonly queues = ['default'];
  readonly features = {
    defer: false,
    bulkEnqueue: true,
    blockingAcquire: true,
    sharedAcrossProcesses: true,
  };
  readonly maintenanceIntervalMs = 1000;
  readonly leaseTtlMs = 60 * 60 * 1000;
  readonly ready: TaskRecord[] = [];
  readonly acquireCalls: AcquireOptions[] = [];
  readonly acknowledged: TaskRecord[][] = [];
  readonly released: TaskRecord[][] = [];
  /** Called after each acquire resolved, with what it returned. */
  onAcquired: (records: TaskRecord[]) => void = () => undefined;

  async acquire(_queues: readonly string[], options: AcquireOptions): Promise<TaskRecord[]> {
    this.acquireCalls.push(options);
    if (this.ready.length === 0 && options.timeoutMs > 0 && !options.signal?.aborted) {
      await new Promise<void>((resolve) =>
        options.signal?.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    const now = new Date();
    const taken = this.ready.splice(0, options.max ?? 1).map((record): TaskRecord => ({
      ...record,
      status: TaskResultStatus.RUNNING,
      startedAt: now,
      lastAttemptedAt: now,
      workerIds: [...record.workerIds, options.workerId],
    }));
    this.onAcquired(taken);
    return taken;
  }

  acknowledgeAndAcquire(
    finished: readonly TaskRecord[],
    queues: readonly string[],
    options: AcquireOptions,
  ): Promise<AcknowledgeAndAcquireResult> {
    return acknowledgeThenAcquire(this, finished, queues, options);
  }

  async acknowledge(records: readonly TaskRecord[]): Promise<AcknowledgeOutcome[]> {
    this.acknowledged.push([...records]);
    return records.map(() => 'acknowledged');
  }

  async release(records: readonly TaskRecord[]): Promise<number> {
    this.released.push([...records]);
    return records.length;
  }

  readonly unleased: TaskRecord[][] = [];

  async unlease(records: readonly TaskRecord[]): Promise<number> {
    this.unleased.push([...records]);
    return records.length;
  }

  async enqueue(record: TaskRecord): Promise<TaskRecord> {
    this.ready.push(record);
    return record;
  }

  async enqueueMany(records: readonly TaskRecord[]): Promise<TaskRecord[]> {
    this.ready.push(...records);
    return [...records];
  }

  async peek(_queue: string, segment: QueueSegment, _count: number): Promise<TaskRecord[]> {
    return segment === 'running' ? [...this.runningSegment] : [];
  }

  async telemetry(_intervalMs: number): Promise<BackendTelemetry> {
    return { queues: {} };
  }

  /** What getResult answers, by id (the pool reads a crashed child's tasks here). */
  readonly stored = new Map<string, TaskRecord>();
  /** What peek answers for the running segment. */
  readonly runningSegment: TaskRecord[] = [];
  maintenancePasses = 0;

  getResultCalls = 0;

  async getResult(id: string): Promise<TaskRecord> {
    this.getResultCalls++;
    const record = this.stored.get(id);
    if (!record) throw new TaskResultDoesNotExist(`no task ${id}`);
    return record;
  }

  async maintenancePass(): Promise<MaintenancePassReport> {
    this.maintenancePasses++;
    // Not a literal: the report may grow fields (e.g. `recovered`) this fake need not know.
    const report = { promoted: 0, reaped: 0, recovered: 0, trimmed: 0, failedSteps: [] };
    return report;
  }

  // Retries and dead-pool recovery: what the pool sends back is recorded; the
  // pool heartbeats do nothing here.
  readonly retried: TaskRecord[][] = [];

  async retry(records: readonly TaskRecord[]): Promise<('retried' | 'stale')[]> {
    this.retried.push([...records]);
    return records.map(() => 'retried');
  }

  async beatPool(_poolId: string, _ttlMs: number): Promise<void> {}

  async retirePool(_poolId: string): Promise<void> {}

  async maintenanceHeartbeat(): Promise<Date | null> {
    return null;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}
}
