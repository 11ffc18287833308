import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { UnknownBackendError } from '../core/errors/unknown-backend.error';
import { TaskResult } from '../core/task-result';
import { TASK_EVENT_LISTENER_METADATA, WORKER_CHILD_ENV } from '../core/threadmill.constants';
import type { TaskEventListenerMetadata } from './on-task-event.decorator';
import { TaskEventFeed } from './task-event-feed';

/**
 * Finds every `@OnTaskEvent` method on the application's singleton providers
 * at bootstrap, subscribes each to its backend's feed of its event, and
 * unsubscribes them when the module is destroyed. A pool's children skip it:
 * their pool's main process runs the same module and hears every task once
 * for them.
 *
 * @internal
 */
@Injectable()
export class TaskEventListenerExplorer implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('TaskEvents');
  private readonly unsubscribes: (() => Promise<void>)[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly feed: TaskEventFeed,
  ) {}

  /**
   * Resolves once every listener is subscribed. A store that cannot be
   * reached is logged (the app still starts, its listeners deaf).
   *
   * @throws UnknownBackendError when a listener names an alias that is not configured.
   */
  async onModuleInit(): Promise<void> {
    if (process.env[WORKER_CHILD_ENV] === '1') return;
    const subscribing: Promise<void>[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) continue;
      const instance: unknown = wrapper.instance;
      if (typeof instance !== 'object' || instance === null) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
      if (!prototype) continue;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const method = prototype[methodName];
        if (typeof method !== 'function') continue;
        const metadata = this.reflector.get<TaskEventListenerMetadata | undefined>(
          TASK_EVENT_LISTENER_METADATA,
          method,
        );
        if (!metadata) continue;
        const place = `${instance.constructor.name}.${methodName}`;
        const listener = (result: TaskResult): unknown => method.call(instance, result);
        subscribing.push(this.subscribe(place, listener, metadata));
      }
    }
    await Promise.all(subscribing);
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all(this.unsubscribes.splice(0).map((unsubscribe) => unsubscribe()));
  }

  private async subscribe(
    place: string,
    listener: (result: TaskResult) => unknown,
    { event, task, backend }: TaskEventListenerMetadata,
  ): Promise<void> {
    try {
      const filter = { ...(task === undefined ? {} : { task }), ...(backend ? { backend } : {}) };
      this.unsubscribes.push(
        await this.feed.subscribe(event, async (result) => void (await listener(result)), filter),
      );
    } catch (error) {
      if (error instanceof UnknownBackendError) throw error;
      this.logger.error(
        `@OnTaskEvent ${place} could not subscribe to "${event}": it hears nothing`,
        error instanceof Error ? error.stack : String(error),
      );
    }
  }
}
