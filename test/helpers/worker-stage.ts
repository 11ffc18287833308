import type { TaskBackend } from '../../lib/core/task-backend.interface';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import type { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import type { RunningCli } from './cli-process';
import { cliStage, type StageStore } from './cli-stage';
import { readyRecord } from './ready-record';
import { storedRecords, untilStatus } from './task-status';

/** A test's CLI stage on `store`, with the calls the worker e2e suites make on it. */
export interface WorkerStage {
  readonly alias: string;
  readonly backend: TaskBackend;
  /** A CLI process on the alias. */
  startCli(args: string[], env?: Record<string, string>): RunningCli;
  /** `threadmill worker --alias <alias> ...args`. */
  startWorker(args: string[], env?: Record<string, string>): RunningCli;
  /** A ready record of the alias. */
  taskRecord(name: string, args: unknown[], queue?: string): TaskRecord;
  /** The records as stored now. */
  results(records: readonly TaskRecord[]): Promise<TaskRecord[]>;
  /** The records once each is stored with `status`. */
  untilStatus(
    records: readonly TaskRecord[],
    status: TaskResultStatus,
    timeoutMs?: number,
  ): Promise<TaskRecord[]>;
}

/** Call inside a describe: each test gets its own alias, as cliStage gives. */
export function workerStage(store: StageStore): WorkerStage {
  const stage = cliStage(undefined, store);
  const startCli = (args: string[], env: Record<string, string> = {}): RunningCli =>
    stage.start(args, env);
  return {
    get alias() {
      return stage.alias;
    },
    get backend() {
      return stage.backend;
    },
    startCli,
    startWorker: (args, env = {}) => startCli(['worker', '--alias', stage.alias, ...args], env),
    taskRecord: (name, args, queue = 'default') => readyRecord(stage.alias, { name, args, queue }),
    results: (records) => storedRecords(stage.backend, records),
    untilStatus: (records, status, timeoutMs) =>
      untilStatus(stage.backend, records, status, timeoutMs),
  };
}
