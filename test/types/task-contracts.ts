// Compiled by `tsc --noEmit` (the first step of `npm test`), never run. Each
// `@ts-expect-error` line must stay a compile error: a producer that imports
// only a contract is checked as strictly as one that imports the task class,
// and a worker's method must match the contract it implements.
import { Injectable } from '@nestjs/common';

import {
  Task,
  TaskContext,
  TaskService,
  defineTask,
  type TaskHandle,
  type TaskResult,
} from '../../lib';

const SendDigest = defineTask<[day: string], { sent: number }>({
  name: 'mail.sendDigest',
  queue: 'emails',
  retries: 3,
  unique: { key: (day) => `digest:${day}`, mode: 'unfinished' },
});

const Ping = defineTask({ name: 'ping' });

export async function producer(tasks: TaskService): Promise<void> {
  const digest: TaskResult<{ sent: number }> = await tasks.enqueue(SendDigest, ['2026-12-07']);
  await digest.wait({ timeoutMs: 1000 });
  const sent: number = digest.returnValue.sent;
  void sent;
  await tasks.enqueueMany(SendDigest, [['a'], ['b']], { priority: 5 });
  const handle: TaskHandle<[day: string], { sent: number }> = tasks.task(SendDigest);
  await handle.using({ delayMs: 10 }).enqueue('2026-12-07');
  const later: TaskResult<{ sent: number }> = await handle.waitForResult('id');
  void later;
  const ping: TaskResult<void> = await tasks.enqueue(Ping, []);
  void ping;

  // @ts-expect-error wrong argument type
  await tasks.enqueue(SendDigest, [42]);
  // @ts-expect-error missing argument
  await tasks.enqueue(SendDigest, []);
  // @ts-expect-error one argument too many
  await tasks.enqueue(SendDigest, ['a', 'b']);
  // @ts-expect-error wrong argument type in a bulk enqueue
  await tasks.enqueueMany(SendDigest, [['a'], [1]]);
  // @ts-expect-error wrong argument type through a handle
  await tasks.task(SendDigest).enqueue(1);
  // @ts-expect-error the result is typed by the contract
  const wrong: TaskResult<string> = await tasks.enqueue(SendDigest, ['a']);
  void wrong;
}

// @ts-expect-error a contract needs its name
defineTask({ queue: 'emails' });
// @ts-expect-error the key function takes the contract's arguments
defineTask<[day: string]>({ name: 'x', unique: { key: (day: number) => String(day) } });
// @ts-expect-error how the method runs is the worker's, not the contract's
defineTask({ name: 'x', takesContext: true });

@Injectable()
export class DigestTasks {
  @Task(SendDigest)
  sendDigest(day: string): Promise<{ sent: number }> {
    return Promise.resolve({ sent: day.length });
  }

  @Task(SendDigest, { takesContext: true, blockingMs: 1000 })
  withContext(context: TaskContext, day: string): { sent: number } {
    return { sent: context.attempt + day.length };
  }
}

export class WrongArguments {
  // @ts-expect-error the method's parameter is not the contract's
  @Task(SendDigest)
  sendDigest(day: number): Promise<{ sent: number }> {
    return Promise.resolve({ sent: day });
  }
}

export class WrongResult {
  // @ts-expect-error the method's result is not the contract's
  @Task(SendDigest)
  sendDigest(day: string): string {
    return day;
  }
}

export class ContextNotDeclared {
  // @ts-expect-error a method taking the context says so
  @Task(SendDigest)
  sendDigest(context: TaskContext, day: string): { sent: number } {
    return { sent: context.attempt + day.length };
  }
}

export class OptionRedefined {
  // @ts-expect-error the queue is the contract's
  @Task(SendDigest, { queue: 'other' })
  sendDigest(day: string): { sent: number } {
    return { sent: day.length };
  }
}
