import type { LoggerService } from '@nestjs/common';

import type { EventStream } from '../core/event-stream';
import type { AttemptEndedEvent } from '../core/stream-events.interface';
import type { TaskRecord } from '../core/task-record.interface';
import { dashboardActionLine } from '../core/event-stream.messages';
import {
  childExited,
  childStarted,
  maintenanceStepFailed,
  poolSummary,
  taskFinishedLine,
  taskStartedLine,
} from './worker.messages';

/** The worker id of the attempt under way: the slot that runs it, last of its worker ids. */
const runningOn = (record: TaskRecord): string => record.workerIds[record.workerIds.length - 1];

/**
 * The worker's log lines that tell what happened, written from the event
 * stream with Nest's Logger (the text from worker.messages.ts): a child's
 * per-task lines, and a pool's lines of its children, maintenance and
 * summary, and the web dashboard's actions. Each returns its unsubscribe.
 *
 * @internal
 */
export class StreamLogListener {
  constructor(
    private readonly stream: EventStream,
    private readonly logger: LoggerService,
  ) {}

  /**
   * A line per started and per ended attempt, at verbose. Subscribe only
   * when verbose is on: unheard, the stream builds no event and no line.
   */
  tasks(): () => void {
    const ended = ({ record, durationMs }: AttemptEndedEvent): void => {
      this.logger.verbose?.(taskFinishedLine(record, durationMs, record.status));
    };
    return this.all([
      this.stream.on('taskStarted', ({ record }) => {
        this.logger.verbose?.(taskStartedLine(record, runningOn(record)));
      }),
      this.stream.on('taskFinished', ended),
      this.stream.on('taskRetried', ended),
    ]);
  }

  /** A pool's lines: each child started and exited, each maintenance step failed, the summary. */
  pool(): () => void {
    return this.all([
      this.stream.on('childStarted', ({ pid }) => {
        this.logger.log(childStarted(pid));
      }),
      this.stream.on('childExited', ({ pid, cause, reason }) => {
        this.logger.log(childExited(pid, cause, reason));
      }),
      this.stream.on('maintenanceStepFailed', ({ step, error }) => {
        this.logger.error(maintenanceStepFailed(step, error));
      }),
      this.stream.on('poolSummary', ({ done, failed, ratePerSecond, children }) => {
        this.logger.log(poolSummary(done, failed, ratePerSecond, children));
      }),
    ]);
  }

  /** A line per action taken through the web dashboard: who, what, on what, how many. */
  dashboard(): () => void {
    return this.stream.on('dashboardAction', (event) => {
      this.logger.log(dashboardActionLine(event));
    });
  }

  private all(stops: readonly (() => void)[]): () => void {
    return () => stops.forEach((stop) => stop());
  }
}
