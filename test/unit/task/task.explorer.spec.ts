import { Injectable, Module, Scope, type Provider } from '@nestjs/common';
import { Test } from '@nestjs/testing';

import {
  DuplicateTaskError,
  InvalidTaskError,
  MemoryBackend,
  Task,
  TaskContext,
  ThreadmillModule,
  type TaskOptions,
} from '../../../lib';
import { TaskRegistry } from '../../../lib/task/task.registry';
import { Greeter, GreetingTasks } from '../../fixtures/greeting.tasks';

const threadmill = () =>
  ThreadmillModule.forRoot({ backends: { default: { backend: MemoryBackend } } });

/** Compiles and initialises a testing module; resolves with its registry, closing it after. */
async function discover(providers: Provider[], imports: never[] = []): Promise<TaskRegistry> {
  const moduleRef = await Test.createTestingModule({
    imports: [threadmill(), ...imports],
    providers,
  }).compile();
  try {
    await moduleRef.init();
    return moduleRef.get(TaskRegistry);
  } finally {
    await moduleRef.close();
  }
}

function taskClass(options: TaskOptions, className = 'Custom') {
  @Injectable()
  class Holder {
    @Task(options)
    run(): void {}
  }
  Object.defineProperty(Holder, 'name', { value: className });
  return Holder;
}

describe('TaskExplorer', () => {
  it('registers every @Task method with its resolved options, and nothing else', async () => {
    const registry = await discover([Greeter, GreetingTasks]);
    expect(registry.names.sort()).toEqual(
      [
        'GreetingTasks.failAsync',
        'GreetingTasks.failSync',
        'GreetingTasks.greet',
        'GreetingTasks.nothing',
        'GreetingTasks.returnsDate',
        'GreetingTasks.throwNonError',
        'GreetingTasks.withContext',
        'greetings.shout',
      ].sort(),
    );
    expect(registry.find('GreetingTasks.greet')?.options).toEqual({
      name: 'GreetingTasks.greet',
      queue: 'default',
      priority: 0,
      takesContext: false,
    });
    expect(registry.find('greetings.shout')?.options).toMatchObject({
      queue: 'loud',
      priority: 10,
    });
    expect(registry.find('GreetingTasks.withContext')?.options.takesContext).toBe(true);
    expect(registry.findByMethod(GreetingTasks, 'helper')).toBeUndefined();
  });

  it('refuses two tasks with one name at bootstrap, naming both places', async () => {
    const First = taskClass({ name: 'shared' }, 'First');
    const Second = taskClass({ name: 'shared' }, 'Second');
    const attempt = discover([First, Second]);
    await expect(attempt).rejects.toThrow(DuplicateTaskError);
    await expect(discover([First, Second])).rejects.toThrow(
      'Two tasks are named "shared": First.run (in RootTestModule) and Second.run (in RootTestModule).',
    );
  });

  it('refuses the same class provided by two modules, naming both modules', async () => {
    const Shared = taskClass({}, 'Shared');
    @Module({ providers: [Shared] })
    class OneModule {}
    @Module({ providers: [Shared] })
    class OtherModule {}
    await expect(discover([], [OneModule, OtherModule] as never[])).rejects.toThrow(
      'Two tasks are named "Shared.run": Shared.run (in OneModule) and Shared.run (in OtherModule).',
    );
  });

  it('counts one instance reached through an alias token once', async () => {
    const registry = await discover([
      Greeter,
      GreetingTasks,
      { provide: 'greetings-alias', useExisting: GreetingTasks },
    ]);
    expect(registry.find('GreetingTasks.greet')?.instance).toBeInstanceOf(GreetingTasks);
  });

  it.each([
    ['request-scoped', Scope.REQUEST],
    ['transient', Scope.TRANSIENT],
  ])('refuses a task on a %s provider, naming provider and method', async (word, scope) => {
    @Injectable({ scope })
    class ScopedTasks {
      @Task()
      handle(): void {}
    }
    const attempt = discover([ScopedTasks]);
    await expect(attempt).rejects.toThrow(InvalidTaskError);
    await expect(discover([ScopedTasks])).rejects.toThrow(
      `ScopedTasks.handle is a @Task on a ${word} provider`,
    );
  });

  it('refuses a task on a provider that depends on a request-scoped one', async () => {
    @Injectable({ scope: Scope.REQUEST })
    class PerRequest {}
    @Injectable()
    class Dependent {
      constructor(readonly perRequest: PerRequest) {}
      @Task()
      handle(): void {}
    }
    await expect(discover([PerRequest, Dependent])).rejects.toThrow(
      'Dependent.handle is a @Task on a request-scoped provider',
    );
  });

  it.each([
    [{ name: 'has space' }, 'The task name "has space" is invalid'],
    [{ name: 'a:b' }, 'The task name "a:b" is invalid'],
    [{ name: '{tag}' }, 'The task name "{tag}" is invalid'],
    [{ queue: 'q:1' }, 'The queue name "q:1" is invalid'],
    [{ backend: 'x y' }, 'The backend alias name "x y" is invalid'],
    [{ priority: 500 }, 'Task "Custom.run": priority 500 is invalid'],
    [{ priority: 0.5 }, 'Task "Custom.run": priority 0.5 is invalid'],
    [{ timeoutMs: 0 }, 'Task "Custom.run": timeoutMs must be a whole number of milliseconds'],
    [
      { cancel: { hardStopAfterMs: 1.5 } },
      'Task "Custom.run": cancel.hardStopAfterMs must be a whole number of milliseconds',
    ],
  ])('refuses @Task(%p) at bootstrap', async (options, message) => {
    await expect(discover([taskClass(options)])).rejects.toThrow(message);
  });

  it('refuses a takesContext that disagrees with the first parameter', async () => {
    @Injectable()
    class Declared {
      @Task({ takesContext: true })
      run(label: string): string {
        return label;
      }
    }
    @Injectable()
    class Denied {
      @Task({ takesContext: false })
      run(context: TaskContext): number {
        return context.attempt;
      }
    }
    interface ContextLike {
      attempt: number;
    }
    @Injectable()
    class TypeOnly {
      // An interface (or a type-only import) leaves Object in the metadata: trust the option.
      @Task({ takesContext: true })
      run(context: ContextLike): number {
        return context.attempt;
      }
    }
    const registry = await discover([TypeOnly]);
    expect(registry.find('TypeOnly.run')?.options.takesContext).toBe(true);
    await expect(discover([Declared])).rejects.toThrow(
      'Task Declared.run declares takesContext: true but its first parameter is not a TaskContext',
    );
    await expect(discover([Denied])).rejects.toThrow(
      'Task Denied.run has a TaskContext as its first parameter but declares takesContext: false',
    );
  });
});
