import { Test, type TestingModule } from '@nestjs/testing';

import {
  MemoryBackend,
  TaskService,
  ThreadmillModule,
  type ThreadmillModuleOptions,
} from '../../../lib';
import { Greeter, GreetingTasks } from '../../fixtures/greeting.tasks';

/** A started module of ThreadmillModule over `backends`, with the greeting tasks registered. */
export async function greetingModule(
  backends: ThreadmillModuleOptions['backends'],
): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({
    imports: [ThreadmillModule.forRoot({ backends })],
    providers: [Greeter, GreetingTasks],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

/**
 * The module and its TaskService, started before each test of the calling
 * describe and closed after it: backend "default" serves queues "default" and
 * "loud"; "nodefer" cannot defer a task.
 */
export function startedEachTest(): { moduleRef: TestingModule; tasks: TaskService } {
  const started = {} as { moduleRef: TestingModule; tasks: TaskService };
  beforeEach(async () => {
    started.moduleRef = await greetingModule({
      default: { backend: MemoryBackend, queues: ['default', 'loud'] },
      nodefer: { backend: MemoryBackend, options: { immediate: true } },
    });
    started.tasks = started.moduleRef.get(TaskService);
  });
  afterEach(async () => {
    await started.moduleRef.close();
  });
  return started;
}
