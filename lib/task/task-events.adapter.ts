import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { EventStream } from '../core/event-stream';
import type { AttemptEndedEvent, TaskStreamEvent } from '../core/stream-events.interface';
import { TaskResult } from '../core/task-result';
import { TaskEvents, type TaskEventName } from './task-events';

/**
 * Feeds TaskEvents' in-process `enqueued`, `started`, `progressed` and
 * `finished` from the event stream: `finished` from both ends of an attempt
 * (the task finished for good, or retried), as TaskEvents always announced
 * every ended attempt. Each kind is wanted only while TaskEvents has a
 * listener of its event, so a worker whose app listens to none builds no
 * event and no TaskResult per task.
 *
 * @internal
 */
@Injectable()
export class TaskEventsAdapter implements OnModuleDestroy {
  private readonly stops: readonly (() => void)[];

  constructor(stream: EventStream, events: TaskEvents) {
    const wanted = (event: TaskEventName) => ({ wanted: () => events.listens(event) });
    const result = ({ record, source }: TaskStreamEvent): TaskResult =>
      new TaskResult(record, source);
    const finished = (event: AttemptEndedEvent): void => events.emit('finished', result(event));
    this.stops = [
      stream.on(
        'taskEnqueued',
        // The enqueue call's own result, so its listeners and its caller hold the same object.
        (event) => events.emit('enqueued', event.result ?? result(event)),
        wanted('enqueued'),
      ),
      stream.on('taskStarted', (event) => events.emit('started', result(event)), wanted('started')),
      stream.on(
        'taskProgressed',
        (event) => events.emit('progressed', result(event)),
        wanted('progressed'),
      ),
      stream.on('taskFinished', finished, wanted('finished')),
      stream.on('taskRetried', finished, wanted('finished')),
    ];
  }

  onModuleDestroy(): void {
    for (const stop of this.stops) stop();
  }
}
