import { SetMetadata } from '@nestjs/common';
import type { TaskContext } from '../core/task-context';
import type { TaskOptions } from '../core/task-options.interface';
import { TASK_METADATA } from '../core/threadmill.constants';
import type { TaskContract, TaskImplementationOptions } from './task-contract';

/** A method that can implement a contract taking `A` and returning `R`. */
type ImplementingMethod<A extends readonly unknown[], R> = (...args: A) => R | PromiseLike<R>;

/** The same, with the TaskContext the worker passes first (`takesContext: true`). */
type ContextMethod<A extends readonly unknown[], R> = (
  context: TaskContext,
  ...args: A
) => R | PromiseLike<R>;

/** A method decorator that accepts only methods of type `M`. */
type TypedMethodDecorator<M> = <T extends M>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<T>,
) => void;

/**
 * Marks a method of a provider as a task. Only writes metadata: discovery,
 * validation and defaults happen at bootstrap.
 *
 * With a contract (`defineTask`), the method implements it: the compiler
 * checks its parameters and result against the contract's, and its options
 * are the contract's; only how the method runs (`takesContext`,
 * `blockingMs`, `cancel`, `schedule`) may be added here.
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
 *
 *   @Task(SendDigest) // defineTask<[day: string], { sent: number }>({ name: 'mail.sendDigest' })
 *   async sendDigest(day: string): Promise<{ sent: number }> {
 *     return { sent: await this.mailer.digest(day) };
 *   }
 * }
 * ```
 * @publicApi
 */
export function Task(options?: TaskOptions): MethodDecorator;
export function Task<A extends readonly unknown[], R>(
  contract: TaskContract<A, R>,
  options?: TaskImplementationOptions & { takesContext?: false },
): TypedMethodDecorator<ImplementingMethod<A, R>>;
export function Task<A extends readonly unknown[], R>(
  contract: TaskContract<A, R>,
  options: TaskImplementationOptions & { takesContext: true },
): TypedMethodDecorator<ContextMethod<A, R>>;
export function Task(
  first: TaskOptions | TaskContract = {},
  implementation: TaskImplementationOptions = {},
): MethodDecorator {
  if (isContract(first)) return SetMetadata(TASK_METADATA, { ...implementation, contract: first });
  return SetMetadata(TASK_METADATA, { ...first });
}

/** Told apart by shape, not class: a contract may come from another copy of this package. */
function isContract(value: TaskOptions | TaskContract): value is TaskContract {
  return 'declared' in value && 'options' in value;
}
