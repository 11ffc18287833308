import { Test, type TestingModule } from '@nestjs/testing';
import {
  ClsPluginTransactional,
  NoOpTransactionalAdapter,
  TransactionHost,
} from '@nestjs-cls/transactional';
import { ClsModule } from 'nestjs-cls';

import {
  MemoryBackend,
  TaskService,
  ThreadmillModule,
  TransactionHandleUnusableError,
  TransactionNotSupportedError,
  defineTask,
  type JoinTransactionsOptions,
  type TaskTransaction,
} from '../../../lib';

const Welcome = defineTask<[string]>({ name: 'users.welcome' });

/** What the app's transaction holds: not a handle Threadmill knows. */
const APP_HANDLE = new Map<string, string>();

async function boot(
  joinTransactions: boolean | JoinTransactionsOptions,
  withCls: boolean,
): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      ...(withCls
        ? [
            ClsModule.forRoot({
              global: true,
              plugins: [
                new ClsPluginTransactional({
                  adapter: new NoOpTransactionalAdapter({ tx: APP_HANDLE, disableWarning: true }),
                }),
              ],
            }),
          ]
        : []),
      ThreadmillModule.forRoot({
        backends: { default: { backend: MemoryBackend } },
        joinTransactions,
      }),
    ],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

describe('joinTransactions', () => {
  const opened: TestingModule[] = [];
  afterEach(async () => {
    for (const moduleRef of opened.splice(0)) await moduleRef.close();
  });

  it("stores at once in an app without ClsModule, as a command booting the app's configuration is", async () => {
    const moduleRef = await boot(true, false);
    opened.push(moduleRef);
    const result = await moduleRef.get(TaskService).enqueue(Welcome, ['u1']);
    await expect(result.refresh()).resolves.toMatchObject({ args: ['u1'] });
  });

  it('hands what its adapter makes of the handle to the path of the transaction option', async () => {
    const handles: unknown[] = [];
    const adapter = (tx: Map<string, string>): TaskTransaction => {
      handles.push(tx);
      return { source: 'the app', query: () => Promise.resolve([]) };
    };
    const moduleRef = await boot({ adapter: adapter }, true);
    opened.push(moduleRef);
    const host = moduleRef.get(TransactionHost);
    const enqueue = host.withTransaction(() => moduleRef.get(TaskService).enqueue(Welcome, ['u1']));
    // The memory backend refuses a joined transaction as it refuses an explicit one.
    await expect(enqueue).rejects.toBeInstanceOf(TransactionNotSupportedError);
    expect(handles).toEqual([APP_HANDLE]);
  });

  it("is read from forRootAsync's factory too", async () => {
    const adapter = (): TaskTransaction => ({
      source: 'the app',
      query: () => Promise.resolve([]),
    });
    const moduleRef = await Test.createTestingModule({
      imports: [
        ClsModule.forRoot({
          global: true,
          plugins: [
            new ClsPluginTransactional({
              adapter: new NoOpTransactionalAdapter({ tx: APP_HANDLE, disableWarning: true }),
            }),
          ],
        }),
        ThreadmillModule.forRootAsync({
          useFactory: () => ({
            backends: { default: { backend: MemoryBackend } },
            joinTransactions: { adapter },
          }),
        }),
      ],
    }).compile();
    await moduleRef.init();
    opened.push(moduleRef);
    const enqueue = moduleRef
      .get(TransactionHost)
      .withTransaction(() => moduleRef.get(TaskService).enqueue(Welcome, ['u1']));
    await expect(enqueue).rejects.toBeInstanceOf(TransactionNotSupportedError);
  });

  it('refuses a handle it does not recognise when no adapter is given, storing nothing', async () => {
    const moduleRef = await boot(true, true);
    opened.push(moduleRef);
    const tasks = moduleRef.get(TaskService);
    const enqueue = moduleRef
      .get(TransactionHost)
      .withTransaction(() => tasks.enqueue(Welcome, ['u1'], { id: 'welcome-u1' }));
    await expect(enqueue).rejects.toBeInstanceOf(TransactionHandleUnusableError);
    await expect(enqueue).rejects.toThrow(/\(Map\)/);
    await expect(tasks.getResult('welcome-u1')).rejects.toMatchObject({
      code: 'TASK_RESULT_DOES_NOT_EXIST',
    });
  });
});
