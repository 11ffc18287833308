import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

import { Injectable } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import Redis from 'ioredis';

import {
  InvalidBackendConfigError,
  Task,
  TaskResultStatus,
  TaskService,
  ThreadmillMetrics,
  ThreadmillModule,
  getBackendToken,
  type BackendConfig,
  type TaskBackend,
  type ThreadmillModuleOptions,
} from '../../../lib';
import { BackendRegistry } from '../../../lib/backends/backend.registry';
import { MemoryBackend } from '../../../lib/backends/memory/memory.backend';
import { EventStream } from '../../../lib/core/event-stream';
import { WORKER_CHILD_ENV } from '../../../lib/core/threadmill.constants';
import { RedisBackend } from '../../../lib/backends/redis/redis.backend';
import { SqliteBackend } from '../../../lib/backends/sqlite';
import { ThreadmillHealthIndicator } from '../../../lib/health';
import { InProcessWorker } from '../../../lib/worker/in-process/in-process.worker';
import { readyRecord } from '../../helpers/ready-record';
import { removeAliasKeys } from '../../helpers/redis-cleanup';
import { testAlias } from '../../helpers/test-alias';
import { testRedisUrl } from '../../helpers/test-redis-url';
import { waitFor } from '../../helpers/wait-for';
import { runMaintenancePass } from '../../../lib/lifecycle/maintenance-pass';
import { storeRules } from '../../../lib/lifecycle/store-rules';

@Injectable()
class InProcessTasks {
  @Task({ name: 'inProcess.double' })
  double(n: number): { n: number; pid: number } {
    return { n: 2 * n, pid: process.pid };
  }
}

/** A store the test uses: its backend config, a second backend on it, and its cleanup. */
interface Store {
  readonly name: string;
  config(alias: string): BackendConfig;
  /** Another process's view of the store (none for memory, which no other backend sees). */
  reopen(alias: string): TaskBackend | null;
  cleanup(alias: string): Promise<void>;
}

const QUEUES = ['default', 'emails'];
const options = { maintenanceInterval: 100 };

const redis: Store = {
  name: 'Redis',
  config: () => ({ backend: RedisBackend, url: testRedisUrl(), queues: QUEUES, options }),
  reopen: (alias) => new RedisBackend(alias, redis.config(alias), storeRules),
  async cleanup(alias) {
    const admin = new Redis(testRedisUrl());
    await removeAliasKeys(admin, alias);
    await admin.quit();
  },
};

/** A SQLite file in a folder of its own, made on first use and removed by cleanup. */
function sqlite(): Store {
  let dir: string | null = null;
  const store: Store = {
    name: 'SQLite',
    config() {
      dir ??= mkdtempSync(join(tmpdir(), 'threadmill-in-process-'));
      const url = `sqlite://${join(dir, 'tasks.db')}`;
      return { backend: SqliteBackend, url, queues: QUEUES, options };
    },
    reopen: (alias) => new SqliteBackend(alias, store.config(alias), storeRules),
    async cleanup() {
      if (dir !== null) rmSync(dir, { recursive: true, force: true });
      dir = null;
    },
  };
  return store;
}

const memory: Store = {
  name: 'Memory',
  config: () => ({ backend: MemoryBackend, queues: QUEUES, options }),
  reopen: () => null,
  cleanup: async () => undefined,
};

describe('the in-process worker (ThreadmillModule inProcessWorker)', () => {
  let app: TestingModule | null = null;
  let alias: string;
  let store: Store;

  async function boot(
    using: Store,
    extra: Partial<ThreadmillModuleOptions> = { inProcessWorker: true },
  ): Promise<TestingModule> {
    store = using;
    alias = testAlias();
    const moduleRef = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { [alias]: using.config(alias) }, ...extra })],
      providers: [InProcessTasks, ThreadmillHealthIndicator],
    }).compile();
    try {
      await moduleRef.init();
    } catch (error) {
      // A failed bootstrap never runs the shutdown hooks (close() rethrows it): close the stores here.
      await Promise.all(
        moduleRef
          .get(BackendRegistry)
          .all()
          .map((backend) => backend.close()),
      );
      throw error;
    }
    app = moduleRef;
    return moduleRef;
  }

  afterEach(async () => {
    await app?.close();
    app = null;
    await store.cleanup(alias);
  });

  describe.each([redis, sqlite(), memory].map((s) => [s.name, s] as const))(
    'on %s',
    (_name, using) => {
      it('runs the tasks in the app, beats as a pool, reports health and metrics, and retires on close', async () => {
        const moduleRef = await boot(using, {
          inProcessWorker: { threads: 2 },
          metrics: true,
        });
        const backend = moduleRef.get<TaskBackend>(getBackendToken(alias));
        const tasks = moduleRef.get(TaskService);
        const enqueued = await Promise.all(
          [1, 2, 3].map((n) => tasks.enqueue(InProcessTasks, 'double', [n], { alias: alias })),
        );
        const results = await Promise.all(enqueued.map((e) => e.wait({ timeoutMs: 10_000 })));
        expect(results.map((r) => r.returnValue)).toEqual([
          { n: 2, pid: process.pid },
          { n: 4, pid: process.pid },
          { n: 6, pid: process.pid },
        ]);
        for (const result of results) {
          expect(result.workerIds.at(-1)).toMatch(
            new RegExp(`^${hostname()}:${process.pid}-\\d+$`),
          );
        }

        // Its first beat comes before its slots start, as a pool's comes before its children.
        const [pool] = await waitFor(
          async () => {
            const pools = await backend.pools.list();
            return pools[0]?.children === 1 ? pools : null;
          },
          { what: 'a beat that counts the slots as working' },
        );
        expect(pool).toMatchObject({ pid: process.pid, alive: true, slots: 2 });
        expect(pool.queues).toEqual(QUEUES);

        const health = await waitFor(
          async () => {
            const result = await moduleRef
              .get(ThreadmillHealthIndicator)
              .isHealthy('threadmill', { alias: alias });
            return result.threadmill.inProcessWorker?.done === 3 ? result.threadmill : null;
          },
          { what: 'the health check counting the 3 tasks' },
        );
        expect(health.status).toBe('up');
        expect(health.inProcessWorker).toMatchObject({ up: 1, slotsAlive: 1, done: 3, failed: 0 });

        const text = await moduleRef.get(ThreadmillMetrics).metrics();
        expect(text).toContain(
          'threadmill_tasks_finished_total{task="inProcess.double",queue="default",status="SUCCESSFUL"} 3',
        );

        await moduleRef.close();
        app = null;
        const reader = using.reopen(alias);
        if (reader !== null) {
          // A pool that stopped cleanly holds nothing: it is forgotten at once, not left to lapse.
          expect(await reader.pools.list()).toEqual([]);
          await reader.close();
        }
      });
    },
  );

  it("starts from forRootAsync's factory as from forRoot", async () => {
    store = memory;
    alias = testAlias();
    const moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRootAsync({
          useFactory: () => ({
            backends: { [alias]: memory.config(alias) },
            inProcessWorker: { threads: 3 },
          }),
          backendAliases: [alias],
        }),
      ],
      providers: [InProcessTasks],
    }).compile();
    await moduleRef.init();
    app = moduleRef;
    const enqueued = await moduleRef
      .get(TaskService)
      .enqueue(InProcessTasks, 'double', [21], { alias: alias });
    expect((await enqueued.wait({ timeoutMs: 10_000 })).returnValue).toEqual({
      n: 42,
      pid: process.pid,
    });
    expect(await moduleRef.get<TaskBackend>(getBackendToken(alias)).pools.list()).toEqual([
      expect.objectContaining({ pid: process.pid, slots: 3 }),
    ]);
  });

  it('fails a task whose name the app does not register at once with unknownTaskGraceMs 0', async () => {
    const moduleRef = await boot(memory, { inProcessWorker: { unknownTaskGraceMs: 0 } });
    const backend = moduleRef.get<TaskBackend>(getBackendToken(alias));
    const stranger = readyRecord(alias, { name: 'inProcess.registeredNowhere' });
    await backend.tasks.enqueueMany([stranger]);
    const failed = await waitFor(
      async () => {
        const now = await backend.tasks.getResult(stranger.id);
        return now.status === TaskResultStatus.FAILED ? now : null;
      },
      { what: 'the unknown task FAILED' },
    );
    expect(failed.errors.map((e) => e.className)).toEqual(['UnknownTaskError']);
  });

  it('gives back a task whose name the app does not register, for a worker that does', async () => {
    const moduleRef = await boot(memory);
    const backend = moduleRef.get<TaskBackend>(getBackendToken(alias));
    const givenBack = new Promise<string>((resolve) => {
      const stop = moduleRef.get(EventStream).on('taskUnleased', ({ record }) => {
        stop();
        resolve(record.id);
      });
    });
    const stranger = readyRecord(alias, { name: 'inProcess.registeredNowhere' });
    await backend.tasks.enqueueMany([stranger]);
    expect(await givenBack).toBe(stranger.id);
    const back = await backend.tasks.getResult(stranger.id);
    expect(back.errors).toEqual([]);
    expect(back.status).not.toBe(TaskResultStatus.FAILED);
  });

  it('does not start inside a worker pool child, which runs its own slots', async () => {
    process.env[WORKER_CHILD_ENV] = '1';
    try {
      const moduleRef = await boot(redis);
      expect(moduleRef.get(InProcessWorker).health).toBeNull();
      const backend = moduleRef.get<TaskBackend>(getBackendToken(alias));
      const enqueued = await moduleRef
        .get(TaskService)
        .enqueue(InProcessTasks, 'double', [1], { alias: alias });
      // A pass of the test's own: had the worker started, its beat would precede it.
      await runMaintenancePass(backend);
      expect(await backend.pools.list()).toEqual([]);
      expect((await enqueued.refresh()).status).toBe(TaskResultStatus.READY);
    } finally {
      delete process.env[WORKER_CHILD_ENV];
    }
  });

  it('refuses a queue its backend does not have, naming the option', async () => {
    await expect(boot(redis, { inProcessWorker: { queues: ['reports'] } })).rejects.toThrow(
      InvalidBackendConfigError,
    );
    await expect(boot(redis, { inProcessWorker: { queues: ['reports'] } })).rejects.toThrow(
      /inProcessWorker.*queue "reports" is not configured/,
    );
  });

  it('refuses a backend that runs each task as it is enqueued', async () => {
    const immediate: Store = {
      ...memory,
      config: () => ({ backend: MemoryBackend, queues: QUEUES, options: { immediate: true } }),
    };
    await expect(boot(immediate, { inProcessWorker: { threads: 2 } })).rejects.toThrow(
      /runs each task as it is enqueued/,
    );
  });
});
