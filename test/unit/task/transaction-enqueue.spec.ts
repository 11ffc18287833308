import { Test, type TestingModule } from '@nestjs/testing';

import {
  BackendRegistry,
  MemoryBackend,
  TaskService,
  ThreadmillModule,
  TransactionNotSupportedError,
  type TaskTransaction,
} from '../../../lib';
import { Greeter, GreetingTasks } from '../../fixtures/greeting.tasks';

describe('TaskService, an enqueue in the app transaction', () => {
  let moduleRef: TestingModule;
  let tasks: TaskService;
  const statements: string[] = [];
  const transaction: TaskTransaction = {
    source: 'pg',
    query: (text) => {
      statements.push(text);
      return Promise.resolve([]);
    },
  };

  beforeEach(async () => {
    statements.length = 0;
    moduleRef = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { default: { backend: MemoryBackend } } })],
      providers: [Greeter, GreetingTasks],
    }).compile();
    await moduleRef.init();
    tasks = moduleRef.get(TaskService);
  });

  afterEach(async () => {
    await moduleRef.close();
  });

  it('is refused by a backend outside the app database, naming the fix, and stores nothing', async () => {
    const refusal: unknown = await tasks
      .enqueueMany(GreetingTasks, 'greet', [['a'], ['b']], { transaction })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(TransactionNotSupportedError);
    expect((refusal as Error).message).toMatch(/"default" is a MemoryBackend/);
    expect((refusal as Error).message).toMatch(/PostgresBackend/);
    expect(statements).toEqual([]);
    const backend = moduleRef.get(BackendRegistry).get('default');
    await expect(backend.reads.peek('default', 'ready', 10)).resolves.toEqual([]);
  });

  it('is refused through a handle too', async () => {
    const greet = tasks.task(GreetingTasks, 'greet').using({ transaction });
    await expect(greet.enqueue('a')).rejects.toBeInstanceOf(TransactionNotSupportedError);
  });
});
