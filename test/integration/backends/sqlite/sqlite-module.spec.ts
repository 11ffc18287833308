import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';

// The public API only: what a user of the SQLite backend imports.
import {
  BackendUnavailableError,
  InvalidBackendConfigError,
  TaskResultStatus,
  TaskRunner,
  TaskService,
  ThreadmillModule,
  getBackendToken,
  type TaskBackend,
} from '../../../../lib';
import { SqliteBackend } from '../../../../lib/backends/sqlite';
import { Greeter, GreetingTasks } from '../../../fixtures/greeting.tasks';

describe('SqliteBackend in ThreadmillModule', () => {
  let dir: string;
  let url: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-sqlite-module-'));
    url = `sqlite://${join(dir, 'data', 'threadmill.db')}`;
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const moduleWith = (options: Record<string, unknown> = {}) => {
    @Module({
      imports: [
        ThreadmillModule.forRoot({
          isGlobal: true,
          backends: {
            default: { backend: SqliteBackend, url, queues: ['default', 'loud'], options },
          },
        }),
      ],
      providers: [Greeter, GreetingTasks],
    })
    class AppModule {}
    return Test.createTestingModule({ imports: [AppModule] }).compile();
  };

  it('enqueues, runs and keeps the result across an application restart; shutdown closes the file', async () => {
    const first = await moduleWith();
    await first.init();
    const enqueued = await first.get(TaskService).enqueue(GreetingTasks, 'greet', ['Ada']);
    const backend = first.get<TaskBackend>(getBackendToken());
    const [acquired] = await backend.leases.acquire(['default'], {
      workerId: 'test:1-0',
      timeoutMs: 0,
    });
    await backend.leases.acknowledge([await first.get(TaskRunner).run(acquired)]);
    await first.close();
    await expect(backend.ping()).rejects.toThrow(BackendUnavailableError);

    const second = await moduleWith();
    await second.init();
    const result = await second.get(TaskService).getResult<string>(enqueued.id);
    expect(result.status).toBe(TaskResultStatus.SUCCESSFUL);
    expect(result.returnValue).toBe('Hello, Ada!');
    await second.close();
  });

  it('fails bootstrap naming the alias and the option for a negative TTL', async () => {
    const attempt = moduleWith({ resultTtl: -5 });
    await expect(attempt).rejects.toThrow(InvalidBackendConfigError);
    await expect(moduleWith({ resultTtl: -5 })).rejects.toThrow(
      'Threadmill backend "default": option "resultTtl"',
    );
  });
});
