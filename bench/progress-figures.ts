import { setTimeout as sleep } from 'node:timers/promises';

import { recordWith } from '../lib/core/record-with';
import type { TaskBackend } from '../lib/core/task-backend.interface';
import { ProgressBatcher } from '../lib/core/progress-batcher';
import { TaskContext } from '../lib/core/task-context';
import { finishedRecordSource } from '../lib/core/wait-for-finished';
import { TaskResult } from '../lib/core/task-result';
import { TaskResultStatus } from '../lib/core/task-result-status.enum';
import { median } from './metrics';
import type { FigureRow, Target } from './report';
import type { RunnerResults } from './suite';
import type { RunTask } from './threadmill.consumer';

/** The progress row's key, for the page that explains it. */
export const PROGRESS_ROW_KEY = 'progress.workerCpu';

/** One repetition of the progress figure: the same tasks run twice, reporting progress and not. */
export interface ProgressSample {
  tasks: number;
  /** Worker CPU of the tasks that report nothing (µs, this process, user + system). */
  silentCpuMicros: number;
  /** Worker CPU of the same tasks reporting progress every tick (µs). */
  reportingCpuMicros: number;
}

/** The promise: a task reporting progress every millisecond costs its worker under 5% more CPU. */
const PROGRESS_TARGET: Target = {
  text: '< 1.05× the same task silent',
  check: (row) => (row.threadmill === null ? null : row.threadmill < 1.05),
};

/**
 * A task that wakes every millisecond for `durationMs` and, when
 * `reporting`, reports its tick count through its TaskContext each time, as
 * TaskRunner runs it: the waiting values of all the tasks stored through the
 * backend in one call per interval (one batcher, as a process has), the
 * last value carried by the finished record its consumer acknowledges.
 * Silent, it wakes the same way, so the two differ by the reports and their
 * store writes alone.
 */
export function tickingTask(backend: TaskBackend, reporting: boolean, durationMs: number): RunTask {
  const batcher = new ProgressBatcher(async (_alias, entries) => {
    await backend.leases.storeProgress(entries);
  });
  return async (record) => {
    const context = new TaskContext(
      new TaskResult(record, finishedRecordSource(backend)),
      undefined,
      batcher,
    );
    const end = performance.now() + durationMs;
    for (let tick = 1; performance.now() < end; tick++) {
      await sleep(1);
      if (reporting) context.progress(tick);
    }
    const finished = recordWith(record, {
      status: TaskResultStatus.SUCCESSFUL,
      finishedAt: new Date(),
      returnValue: null,
    });
    return (await context.endProgress(finished)) ?? finished;
  };
}

/**
 * "task reporting progress every ms for 1 s": the worker CPU of the tasks
 * that report as a multiple of the same tasks' silent, the median of the
 * repetitions' ratios; null for a runner without TaskContext (BullMQ, Bee-Queue).
 */
export function progressCpuRow(
  config: { progressTasks: number; progressMs: number },
  pick: (
    pickOne: (r: RunnerResults) => number | null,
  ) => Omit<FigureRow, 'key' | 'label' | 'unit' | 'better'>,
): FigureRow {
  const ratio = (r: RunnerResults): number | null =>
    r.progress.length === 0
      ? null
      : median(r.progress.map((sample) => sample.reportingCpuMicros / sample.silentCpuMicros));
  return {
    key: PROGRESS_ROW_KEY,
    label: `${config.progressTasks} tasks reporting progress every ms for ${config.progressMs / 1000} s: worker CPU`,
    unit: '× the same tasks silent',
    better: 'lower',
    ...pick(ratio),
    target: PROGRESS_TARGET,
  };
}
