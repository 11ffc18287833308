import type { Counter, Histogram, Registry } from 'prom-client';

import type { EventStream } from '../core/event-stream';
import type { TaskRecord } from '../core/task-record.interface';
import type { FinalStatus } from '../core/task-result-status.enum';
import { RUN_SECONDS_BUCKETS, WAIT_SECONDS_BUCKETS } from './metrics.constants';
import type { MetricsSnapshot, PromClient } from './prom-client.loader';
import { dueAt, secondsBetween } from './task-times';

type TaskLabel = 'task' | 'queue';

/** The names TaskMetrics registers (`Object.values` of it: to take them out of a registry that outlives them). */
export const TASK_METRIC_NAMES = {
  finished: 'threadmill_tasks_finished_total',
  retries: 'threadmill_task_retries_total',
  unleased: 'threadmill_tasks_unleased_total',
  storeErrors: 'threadmill_store_errors_total',
  run: 'threadmill_task_run_seconds',
  wait: 'threadmill_task_wait_seconds',
} as const;

/** The labelled children of one task/queue pair, looked up once, then reused per task. */
interface Series {
  readonly retries: Counter.Internal;
  readonly unleased: Counter.Internal;
  readonly run: Histogram.Internal<TaskLabel>;
  readonly wait: Histogram.Internal<TaskLabel>;
  readonly finished: Map<FinalStatus, Counter.Internal>;
}

/**
 * The metrics of the tasks one worker child runs, in a registry of its own,
 * recorded from the event stream of its process: a started task observes its
 * wait, an ended attempt its run time and its outcome (a final status, or a
 * retry), and the child's failed store calls count as store errors (a hook
 * of their own: the stream carries no store call). The
 * child sends `snapshot()` to the pool's main process, which sums the
 * children (see ChildrenMetrics). Per event: a map lookup and an observe.
 *
 * @internal
 */
export class TaskMetrics {
  readonly registry: Registry;
  private readonly finished: Counter<TaskLabel | 'status'>;
  private readonly retries: Counter<TaskLabel>;
  private readonly unleased: Counter<TaskLabel>;
  private readonly storeErrors: Counter;
  private readonly run: Histogram<TaskLabel>;
  private readonly wait: Histogram<TaskLabel>;
  private readonly series = new Map<string, Series>();
  private changed: () => void = () => undefined;

  /**
   * @param registry where they are registered: a registry of their own (a
   *   child's), or the app's, for the in-process worker.
   */
  constructor(prom: PromClient, registry?: Registry) {
    const registers = [(this.registry = registry ?? new prom.Registry())];
    this.finished = new prom.Counter({
      name: TASK_METRIC_NAMES.finished,
      help: 'Tasks that ended for good, by final status (SUCCESSFUL, FAILED, CANCELLED).',
      labelNames: ['task', 'queue', 'status'],
      registers,
    });
    this.retries = new prom.Counter({
      name: TASK_METRIC_NAMES.retries,
      help: 'Attempts that failed and will run again (the task has attempts left).',
      labelNames: ['task', 'queue'],
      registers,
    });
    this.unleased = new prom.Counter({
      name: TASK_METRIC_NAMES.unleased,
      help: 'Leased tasks given back unstarted (no attempt counted) because this worker registers no task of their name.',
      labelNames: ['task', 'queue'],
      registers,
    });
    this.storeErrors = new prom.Counter({
      name: TASK_METRIC_NAMES.storeErrors,
      help: 'Backend calls of the workers that failed (acquire, acknowledge).',
      registers,
    });
    this.run = new prom.Histogram({
      name: TASK_METRIC_NAMES.run,
      help: 'Time from an attempt start to its end.',
      labelNames: ['task', 'queue'],
      buckets: RUN_SECONDS_BUCKETS,
      registers,
    });
    this.wait = new prom.Histogram({
      name: TASK_METRIC_NAMES.wait,
      help: 'Time from a task being due (enqueued, or its runAfter) to its attempt start.',
      labelNames: ['task', 'queue'],
      buckets: WAIT_SECONDS_BUCKETS,
      registers,
    });
  }

  /** Calls `changed` after each change from now on (the child then schedules a report). */
  watch(changed: () => void): void {
    this.changed = changed;
  }

  /** Records from `stream` until the returned function is called. */
  listen(stream: EventStream): () => void {
    const stops = [
      stream.on('taskStarted', ({ record }) => this.started(record)),
      stream.on('taskFinished', ({ record, status }) => this.ended(record, status)),
      stream.on('taskRetried', ({ record }) => this.retried(record)),
      stream.on('taskUnleased', ({ record }) => {
        this.of(record).unleased.inc();
        this.changed();
      }),
    ];
    return () => stops.forEach((stop) => stop());
  }

  /** A backend call of this child failed (an acquire, an acknowledgement). */
  storeFailed(): void {
    this.storeErrors.inc();
    this.changed();
  }

  /** Everything counted so far (cumulative), as the main process sums it. */
  snapshot(): Promise<MetricsSnapshot> {
    return this.registry.getMetricsAsJSON();
  }

  /** An attempt started: how long the task waited since it was due. */
  private started(record: TaskRecord): void {
    const waited = secondsBetween(
      dueAt(record.enqueuedAt, record.task.runAfter),
      record.lastAttemptedAt,
    );
    if (waited === null) return;
    this.of(record).wait.observe(waited);
    this.changed();
  }

  /** An attempt ended the task with its final status: its run time, and the task counted. */
  private ended(record: TaskRecord, status: FinalStatus): void {
    const series = this.ran(record);
    this.finishedOf(record, series, status).inc();
    this.changed();
  }

  /** An attempt failed and the task runs again: its run time, and a retry counted. */
  private retried(record: TaskRecord): void {
    this.ran(record).retries.inc();
    this.changed();
  }

  /** Observes an ended attempt's run time; its series. */
  private ran(record: TaskRecord): Series {
    const series = this.of(record);
    const ran = secondsBetween(record.lastAttemptedAt, record.finishedAt ?? new Date());
    if (ran !== null) series.run.observe(ran);
    return series;
  }

  private of(record: TaskRecord): Series {
    const { name: task, queue } = record.task;
    const key = `${task}\n${queue}`;
    let series = this.series.get(key);
    if (series === undefined) {
      const labels = { task, queue };
      series = {
        retries: this.retries.labels(labels),
        unleased: this.unleased.labels(labels),
        run: this.run.labels(labels),
        wait: this.wait.labels(labels),
        finished: new Map(),
      };
      this.series.set(key, series);
    }
    return series;
  }

  private finishedOf(record: TaskRecord, series: Series, status: FinalStatus): Counter.Internal {
    let counter = series.finished.get(status);
    if (counter === undefined) {
      counter = this.finished.labels({ task: record.task.name, queue: record.task.queue, status });
      series.finished.set(status, counter);
    }
    return counter;
  }
}
