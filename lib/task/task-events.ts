import { Injectable, Logger } from '@nestjs/common';

import type { TaskResult } from '../core';

/**
 * The lifecycle events of a task in this process (Django's `task_enqueued`,
 * `task_started` and `task_finished` signals). `enqueued` fires where the task
 * was enqueued; `started`, `progressed` and `finished` where it runs (a worker,
 * or the enqueuing process with an immediate backend, where `enqueued` fires
 * just before the task runs, so its status already reads RUNNING).
 * `progressed` fires each time a `TaskContext.progress` report is stored (at
 * most once per PROGRESS_INTERVAL_MS per task), its result's `progress` the value stored.
 *
 * @example
 * ```ts
 * const finished: TaskEventMap['finished'] = await events.next('finished');
 * ```
 * @publicApi
 */
export interface TaskEventMap {
  enqueued: TaskResult;
  started: TaskResult;
  progressed: TaskResult;
  finished: TaskResult;
}

/**
 * `'enqueued'`, `'started'`, `'progressed'` or `'finished'`.
 *
 * @publicApi
 */
export type TaskEventName = keyof TaskEventMap;

/**
 * A subscriber of one event; a returned promise is not awaited, only watched for errors.
 *
 * @example
 * ```ts
 * const log: TaskEventListener<'finished'> = (result) => logger.log(`${result.id} ${result.status}`);
 * ```
 * @publicApi
 */
export type TaskEventListener<E extends TaskEventName> = (
  result: TaskEventMap[E],
) => void | Promise<void>;

/**
 * Subscribe to task lifecycle events in this process. A listener that throws or
 * rejects is logged and never affects the task or the other listeners.
 *
 * @example
 * ```ts
 * @Injectable()
 * export class Metrics implements OnModuleInit {
 *   constructor(private readonly events: TaskEvents) {}
 *   onModuleInit() {
 *     this.events.on('finished', (result) => this.count(result.task.name, result.status));
 *   }
 * }
 * ```
 * @publicApi
 */
@Injectable()
export class TaskEvents {
  private readonly logger = new Logger(TaskEvents.name);
  private readonly listeners: { [E in TaskEventName]: Set<TaskEventListener<E>> } = {
    enqueued: new Set(),
    started: new Set(),
    progressed: new Set(),
    finished: new Set(),
  };

  /**
   * Calls `listener` for every `event` until the returned function is called.
   *
   * @param event `'enqueued'`, `'started'`, `'progressed'` or `'finished'`.
   * @param listener receives the task's result at that moment.
   * @returns a function that unsubscribes.
   */
  on<E extends TaskEventName>(event: E, listener: TaskEventListener<E>): () => void {
    const set = this.listeners[event] as Set<TaskEventListener<E>>;
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /**
   * Resolves with the next `event` whose result satisfies `filter` (all by default).
   *
   * @param event `'enqueued'`, `'started'`, `'progressed'` or `'finished'`.
   * @param filter which result to wait for, e.g. `(r) => r.id === id`.
   */
  next<E extends TaskEventName>(
    event: E,
    filter: (result: TaskEventMap[E]) => boolean = () => true,
  ): Promise<TaskEventMap[E]> {
    return new Promise((resolve) => {
      const off = this.on(event, (result) => {
        if (!filter(result)) return;
        off();
        resolve(result);
      });
    });
  }

  /** @internal Delivers an event to every listener; never throws. */
  emit<E extends TaskEventName>(event: E, result: TaskEventMap[E]): void {
    const listeners = this.listeners[event] as Set<TaskEventListener<E>>;
    // A worker emits twice per task, mostly to nobody: no copy of an empty set.
    if (listeners.size === 0) return;
    // A copy, so a listener that unsubscribes (next() does) does not skip the one after it.
    for (const listener of [...listeners]) {
      try {
        const returned = listener(result);
        if (returned instanceof Promise) {
          returned.catch((error: unknown) => this.reportListenerError(event, result, error));
        }
      } catch (error) {
        this.reportListenerError(event, result, error);
      }
    }
  }

  private reportListenerError(event: TaskEventName, result: TaskResult, error: unknown): void {
    // A listener is observability code: its failure must not fail or block the task.
    this.logger.error(
      `A "${event}" listener failed for task "${result.task.name}" (${result.id})`,
      error instanceof Error ? error.stack : String(error),
    );
  }
}
