import { Injectable, Logger, Optional, type OnModuleDestroy } from '@nestjs/common';
import { InvalidTaskError } from '../core/errors/invalid-task.error';
import type { TaskResult } from '../core/task-result';
import { allProcessesNeedsModule, notHeardAcrossProcesses } from '../core/threadmill.messages';
import {
  CROSS_PROCESS_TASK_EVENTS,
  TaskEventFeed,
  type CrossProcessTaskEventName,
  type TaskEventFilter,
} from './task-event-feed';

/**
 * The lifecycle events of a task in this process (Django's `task_enqueued`,
 * `task_started` and `task_finished` signals). `enqueued` fires where the task
 * was enqueued; `started`, `progressed` and `finished` where it runs (a worker,
 * or the enqueuing process with an immediate backend, where `enqueued` fires
 * just before the task runs, so its status already reads RUNNING).
 * `progressed` fires each time a `TaskContext.progress` report is written
 * while the task runs (at most once per PROGRESS_INTERVAL_MS per task), its
 * result's `progress` the value stored; the last value comes with `finished`.
 * Each is heard from every process that shares the backend with
 * `on(event, listener, { allProcesses: true })`.
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
 * How `TaskEvents.on` hears an event from every process that shares a
 * backend (its feeds) instead of this process only.
 *
 * @example
 * ```ts
 * events.on('finished', (result) => audit(result), { allProcesses: true, task: 'MailTasks.send' });
 * events.on('progressed', (result) => show(result.id, result.progress), { allProcesses: true });
 * ```
 * @publicApi
 */
export interface TaskEventSubscribeOptions extends TaskEventFilter {
  allProcesses: true;
}

/**
 * Unsubscribes a listener of every process's events; `ready`
 * resolves once it hears every such event from then on (and rejects,
 * logged too, when the store could not be subscribed to).
 *
 * @publicApi
 */
export type TaskEventSubscription = (() => void) & { readonly ready: Promise<void> };

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
export class TaskEvents implements OnModuleDestroy {
  private readonly logger = new Logger(TaskEvents.name);
  /** The unsubscribes of listeners of every process, ended with the module. */
  private readonly crossProcess = new Set<() => void>();
  private readonly listeners: { [E in TaskEventName]: Set<TaskEventListener<E>> } = {
    enqueued: new Set(),
    started: new Set(),
    progressed: new Set(),
    finished: new Set(),
  };

  /** @param feed every process's events; absent for events built by hand (no module). */
  constructor(@Optional() private readonly feed?: TaskEventFeed) {}

  /**
   * Calls `listener` for every `event` until the returned function is called.
   * In this process only, unless `options.allProcesses`: every such event
   * of the backend's tasks, by any process, this one included, each heard
   * once (a listener with the option is not also called for this process's
   * own events), with the task's result read from the store (for
   * `progressed`, with the progress that event stored).
   *
   * @param event `'enqueued'`, `'started'`, `'progressed'` or `'finished'`.
   * @param listener receives the task's result at that moment.
   * @param options `allProcesses: true`, and which `backend` and `task` to hear.
   * @returns a function that unsubscribes.
   * @throws InvalidTaskError for `allProcesses` with an unknown event, or on TaskEvents built by hand.
   */
  on<E extends TaskEventName>(event: E, listener: TaskEventListener<E>): () => void;
  on<E extends CrossProcessTaskEventName>(
    event: E,
    listener: TaskEventListener<E>,
    options: TaskEventSubscribeOptions,
  ): TaskEventSubscription;
  on<E extends TaskEventName>(
    event: E,
    listener: TaskEventListener<E>,
    options?: TaskEventSubscribeOptions,
  ): () => void {
    if (options?.allProcesses) {
      if (!isCrossProcess(event)) {
        throw new InvalidTaskError(notHeardAcrossProcesses(event, CROSS_PROCESS_TASK_EVENTS));
      }
      if (!this.feed) throw new InvalidTaskError(allProcessesNeedsModule());
      // Every event's payload is a TaskResult: one listener shape serves them all.
      const heard = listener as (result: TaskResult) => void | Promise<void>;
      return this.onAllProcesses(this.feed, event, heard, options);
    }
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

  /** Ends the subscriptions to every process's events, so no feed outlives the module. */
  onModuleDestroy(): void {
    for (const off of [...this.crossProcess]) off();
  }

  private onAllProcesses(
    feed: TaskEventFeed,
    event: CrossProcessTaskEventName,
    listener: (result: TaskResult) => void | Promise<void>,
    filter: TaskEventFilter,
  ): TaskEventSubscription {
    let stopped = false;
    const subscribed = feed.subscribe(event, listener, filter);
    const off = (): void => {
      if (stopped) return;
      stopped = true;
      this.crossProcess.delete(off);
      // Ends it once made, whether it is made yet or not.
      void subscribed.then((unsubscribe) => unsubscribe()).catch(() => undefined);
    };
    this.crossProcess.add(off);
    const ready = subscribed.then(
      () => undefined,
      (error: unknown) => {
        this.crossProcess.delete(off);
        this.logger.error(
          `Subscribing to "${event}" of every process failed`,
          error instanceof Error ? error.stack : String(error),
        );
        throw error;
      },
    );
    // `ready` is for whoever awaits it; an unawaited failure is already logged.
    ready.catch(() => undefined);
    return Object.assign(off, { ready });
  }

  /** @internal Whether anyone in this process listens to `event`: an emitter may then skip building its result. */
  listens(event: TaskEventName): boolean {
    return this.listeners[event].size > 0;
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

function isCrossProcess(event: TaskEventName): event is CrossProcessTaskEventName {
  return (CROSS_PROCESS_TASK_EVENTS as readonly string[]).includes(event);
}
