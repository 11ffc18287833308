import { SetMetadata } from '@nestjs/common';

import { TASK_METADATA, type TaskOptions } from '../core';

/**
 * Marks a method of a provider as a task. Only writes metadata: discovery,
 * validation and defaults happen at bootstrap.
 *
 * @param options name, queue, priority, backend and takesContext; each has a default.
 * @example
 * ```ts
 * @Injectable()
 * export class MailTasks {
 *   constructor(private readonly mailer: Mailer) {}
 *
 *   @Task({ queue: 'emails', priority: 10 })
 *   async sendWelcome(userId: string): Promise<string> {
 *     return this.mailer.welcome(userId);
 *   }
 * }
 * ```
 * @publicApi
 */
export function Task(options: TaskOptions = {}): MethodDecorator {
  return SetMetadata(TASK_METADATA, { ...options });
}
