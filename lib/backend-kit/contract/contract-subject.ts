import type { QueueConfig } from '../../core/queue-limits';
import type { TaskBackend } from '../../core/task-backend.interface';
import type { TaskRecord } from '../../core/task-record.interface';
import { TaskResultStatus } from '../../core/task-result-status.enum';
import type { RetentionOptions } from '../../core/retention';
import { readyRecord, type ReadyRecordFields } from './ready-record';

/** How the contract asks a backend under test to be configured (all times in ms). */
export interface ContractSettings {
  alias: string;
  /** Names, or names with their limits as a backend's `queues` takes them. */
  queues: (string | QueueConfig)[];
  leaseTtl: number;
  resultTtl: number;
  maintenanceInterval: number;
  batchSize: number;
  retention?: RetentionOptions;
}

/** A backend built for one test, and how to remove everything it stored. */
export interface ContractSubject {
  backend: TaskBackend;
  cleanup(): Promise<void>;
  /** Another backend on the same store, as a restarted process opens it; absent for a store that is the instance. */
  reopen?(): Promise<TaskBackend>;
}

/** Builds a backend for one test, configured as `settings` say. */
export type ContractFactory = (settings: ContractSettings) => Promise<ContractSubject>;

/** What describeBackendContract runs besides the sections every backend must pass. */
export interface ContractOptions {
  /**
   * The sections of random programs of two callers at once, which draw
   * them with fast-check (an optional peer): run unless false.
   */
  interleavings?: boolean;
}

/** What a section of the suite runs on: this test's backend, and another built for it. */
export interface SectionSubject {
  backend: TaskBackend;
  alias: string;
  build(overrides?: Partial<ContractSettings>): Promise<TaskBackend>;
}

/** The queues every backend under test serves, unless a test asks for others. */
export const CONTRACT_QUEUES = ['default', 'emails', 'low'];

/** A READY record as the task layer would hand it to `enqueue`. */
export const newRecord = (alias: string, fields: ReadyRecordFields = {}): TaskRecord =>
  readyRecord(alias, { name: 'contract.echo', ...fields });

/** `record` ended with `status`: its return value, or one more error. */
export function finish(
  record: TaskRecord,
  status: TaskResultStatus,
  returnValue?: unknown,
): TaskRecord {
  const finished = { ...record, status, finishedAt: new Date() };
  return status === TaskResultStatus.SUCCESSFUL
    ? { ...finished, returnValue }
    : {
        ...finished,
        errors: [...record.errors, { className: 'Error', traceback: 'Error: boom\n    at task' }],
      };
}
