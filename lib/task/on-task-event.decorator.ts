import { SetMetadata } from '@nestjs/common';

import { TASK_EVENT_LISTENER_METADATA } from '../core';
import type { TaskEventFilter } from './task-event-feed';

/**
 * The events `@OnTaskEvent` hears from every process: `'finished'` (a task
 * stored SUCCESSFUL, FAILED or CANCELLED, by whichever process stored it).
 *
 * @publicApi
 */
export type CrossProcessTaskEventName = 'finished';

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
 * that finishes on a backend, whichever process ran it (a worker pool's
 * child, another app instance), in the style of `@OnQueueEvent`. Discovered
 * at bootstrap and subscribed to the backend's feed of finished tasks;
 * unsubscribed when the module is destroyed. A method that throws is logged
 * and never stops the feed. Every process that runs the module (an app
 * instance, a pool's main process) hears each task once; a pool's children
 * do not subscribe. Tasks finished while the process was not subscribed
 * are not replayed.
 *
 * @param event `'finished'`.
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
