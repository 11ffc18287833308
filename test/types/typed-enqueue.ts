// Compiled by `tsc --noEmit` (the first step of `npm test`), never run. Each
// `@ts-expect-error` line must stay a compile error: if the typed enqueue API
// stopped checking arguments, tsc would fail on the now-unused directive.
import {
  TaskService,
  type TaskArgs,
  type TaskOptions,
  type TaskResult,
  type TaskReturn,
} from '../../lib';
import { GreetingTasks } from '../fixtures/greeting.tasks';

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(): T | undefined => undefined;

export async function typedEnqueue(tasks: TaskService): Promise<void> {
  // Arguments are the method's parameters; the result carries its awaited return type.
  const greeting: TaskResult<string> = await tasks.enqueue(GreetingTasks, 'greet', ['Ada']);
  const shout: TaskResult<string> = await tasks.enqueue(GreetingTasks, 'shout', ['Ada', 2], {
    priority: 5,
  });
  await tasks.enqueueMany(GreetingTasks, 'greet', [['a'], ['b']]);
  await tasks.task(GreetingTasks, 'greet').using({ queue: 'loud' }).enqueue('Ada');
  const value: string = greeting.returnValue;
  void shout;
  void value;

  // A leading TaskContext is supplied by the worker, not by the caller.
  const withContext = await tasks.enqueue(GreetingTasks, 'withContext', ['label']);
  const attempt: number = withContext.returnValue.attempt;
  void attempt;
  await tasks.task(GreetingTasks, 'withContext').enqueue('label');

  // A void task's result holds void (stored as null).
  assertType<Equal<TaskReturn<GreetingTasks['nothing']>, void>>();
  assertType<Equal<TaskArgs<GreetingTasks['withContext']>, [label: string]>>();
  assertType<Equal<TaskArgs<GreetingTasks['shout']>, [name: string, times: number]>>();

  // @ts-expect-error wrong argument type
  await tasks.enqueue(GreetingTasks, 'greet', [42]);
  // @ts-expect-error missing argument
  await tasks.enqueue(GreetingTasks, 'shout', ['Ada']);
  // @ts-expect-error one argument too many
  await tasks.enqueue(GreetingTasks, 'greet', ['Ada', 'extra']);
  // @ts-expect-error no such method
  await tasks.enqueue(GreetingTasks, 'sendWelcome', ['Ada']);
  // @ts-expect-error the context is not passed by the caller
  await tasks.enqueue(GreetingTasks, 'withContext', [{}, 'label']);
  // @ts-expect-error wrong argument type through a handle
  await tasks.task(GreetingTasks, 'greet').enqueue(42);
  // @ts-expect-error missing argument through a handle
  await tasks.task(GreetingTasks, 'shout').using({ priority: 1 }).enqueue('Ada');
  // @ts-expect-error no such method on a handle
  tasks.task(GreetingTasks, 'nope');
  // @ts-expect-error wrong argument type in a bulk enqueue
  await tasks.enqueueMany(GreetingTasks, 'greet', [['a'], [1]]);
  // @ts-expect-error the result is typed by the return type
  const wrong: TaskResult<number> = await tasks.enqueue(GreetingTasks, 'greet', ['Ada']);
  void wrong;
  // @ts-expect-error an unknown override
  await tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { delay: 5 });

  // A unique key per call, and whether the enqueue made the task.
  const keyed = await tasks.task(GreetingTasks, 'greet').using({ key: 'user-42' }).enqueue('Ada');
  const created: boolean = keyed.created;
  const key: string | null = keyed.key;
  void created;
  void key;
  await tasks.enqueue(GreetingTasks, 'greet', ['Ada'], {
    key: 'k',
    unique: { mode: 'window', ttlMs: 1000 },
  });
  // A derive function takes the method's parameters.
  const derived: TaskOptions = {
    unique: { key: (userId: string) => `welcome:${userId}`, mode: 'debounce', ttlMs: 5000 },
  };
  void derived;
  // @ts-expect-error no such mode
  await tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { key: 'k', unique: { mode: 'always' } });
  // @ts-expect-error a key is a string
  await tasks.enqueue(GreetingTasks, 'greet', ['Ada'], { key: 42 });
  // @ts-expect-error a derive function returns the key
  const noKey: TaskOptions = { unique: { key: (userId: string) => userId.length } };
  void noKey;
}
