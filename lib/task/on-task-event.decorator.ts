import { SetMetadata } from '@nestjs/common';
import { TASK_EVENT_LISTENER_METADATA } from '../core/threadmill.constants';
import type { CrossProcessTaskEventName, TaskEventFilter } from './task-event-feed';

export type { CrossProcessTaskEventName } from './task-event-feed';

/**
 * Which tasks an `@OnTaskEvent` method hears: `backend` (default: the only
 * alias configured, else `'default'`) and `task` (a stable name; default: all).
 *
 * @publicApi
 */
export type OnTaskEventOptions = TaskEventFilter;

/** What `@OnTaskEvent` records on a method. */
export interface TaskEventListenerMetadata extends OnTaskEventOptions {
  event: CrossProcessTaskEventName;
}

/**
 * Calls the decorated provider method with the TaskResult of every task
 * that is enqueued (`'enqueued'`: a task made, not a unique key's holder
 * returned), starts (`'started'`: a lease taken), reports progress
 * (`'progressed'`: a progress stored, the result's `progress` that value)
 * or finishes (`'finished'`: stored SUCCESSFUL, FAILED or CANCELLED) on a
 * backend, whichever process ran it (a worker pool's child, another app
 * instance), in the style of `@OnQueueEvent`. Discovered
 * at bootstrap and subscribed to the backend's feed of that event;
 * unsubscribed when the module is destroyed. A method that throws is logged
 * and never stops the feed. Every process that runs the module (an app
 * instance, a pool's main process) hears each task once; a pool's children
 * do not subscribe. Events while the process was not subscribed
 * are not replayed.
 *
 * @param event `'enqueued'`, `'started'`, `'progressed'` or `'finished'`.
 * @param options `task` (a stable name) and `backend` (an alias) to narrow what it hears.
 * @example
 * ```ts
 * @Injectable()
 * export class ReportNotifier {
 *   @OnTaskEvent('finished', { task: 'ReportTasks.build' })
 *   async notify(result: TaskResult) {
 *     if (result.status === TaskResultStatus.SUCCESSFUL) await this.mailer.send(result.returnValue);
 *   }
 * }
 * ```
 * @publicApi
 */
export function OnTaskEvent(
  event: CrossProcessTaskEventName,
  options: OnTaskEventOptions = {},
): MethodDecorator {
  const metadata: TaskEventListenerMetadata = { ...options, event };
  return SetMetadata(TASK_EVENT_LISTENER_METADATA, metadata);
}
