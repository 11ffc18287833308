import { Injectable, Logger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import Redis from 'ioredis';

import { Task, TaskService, ThreadmillModule, type TaskBackend } from '../../../lib';
import { ThreadmillHealthIndicator } from '../../../lib/health';
import { BackendRegistry } from '../../../lib/backends/backend.registry';
import { PostgresBackend } from '../../../lib/backends/postgres/postgres.backend';
import { RedisBackend } from '../../../lib/backends/redis/redis.backend';
import { freePort } from '../../helpers/free-port';
import { createTestSchema, type TestSchema } from '../../helpers/postgres-schema';
import { removeAliasKeys } from '../../helpers/redis-cleanup';
import { startRedisServer, type RedisServerHandle } from '../../helpers/redis-server';
import { testAlias } from '../../helpers/test-alias';
import { testRedisUrl } from '../../helpers/test-redis-url';
import { waitFor } from '../../helpers/wait-for';
import { runMaintenancePass } from '../../../lib/lifecycle/maintenance-pass';

@Injectable()
class HealthTasks {
  @Task({ name: 'health.noop' })
  noop(): void {}
}

describe('ThreadmillHealthIndicator', () => {
  let moduleRef: TestingModule;
  let indicator: ThreadmillHealthIndicator;
  let backend: TaskBackend;
  let tasks: TaskService;
  let alias: string;
  let admin: Redis;
  /** The schema of a test on Postgres, dropped after it. */
  let schema: TestSchema | null = null;

  async function boot(
    url: string,
    options: Record<string, unknown> = {},
    store: 'redis' | 'postgres' = 'redis',
  ): Promise<void> {
    alias = testAlias();
    const queues = ['default', 'emails'];
    if (store === 'postgres') schema = await createTestSchema();
    const config = schema
      ? {
          backend: PostgresBackend,
          url: schema.url,
          queues,
          options: { ...options, schema: schema.name },
        }
      : { backend: RedisBackend, url, queues, options };
    moduleRef = await Test.createTestingModule({
      imports: [
        ThreadmillModule.forRoot({
          backends: { [alias]: config },
        }),
      ],
      providers: [HealthTasks, ThreadmillHealthIndicator],
    }).compile();
    await moduleRef.init();
    indicator = moduleRef.get(ThreadmillHealthIndicator);
    backend = moduleRef.get(BackendRegistry).get(alias);
    tasks = moduleRef.get(TaskService);
  }

  beforeAll(() => {
    admin = new Redis(testRedisUrl());
  });

  afterAll(async () => {
    await admin.quit();
  });

  afterEach(async () => {
    await removeAliasKeys(admin, alias);
    await moduleRef?.close();
    await schema?.drop();
    schema = null;
  });

  describe.each(['redis', 'postgres'] as const)('with a reachable backend on %s', (store) => {
    beforeEach(() => boot(testRedisUrl(), { maintenanceInterval: 100 }, store));

    it('is down and says so while no maintenance pass ever ran', async () => {
      const result = await indicator.isHealthy('queue', { alias: alias });
      expect(result.queue.status).toBe('down');
      expect(result.queue.message).toContain('no maintenance heartbeat was ever written');
      expect(result.queue.heartbeatAgeMs).toBeNull();
    });

    it('is up after a maintenance pass, with every queue counted', async () => {
      await tasks.enqueue(HealthTasks, 'noop', [], { alias: alias });
      await tasks.enqueue(HealthTasks, 'noop', [], { alias: alias, queue: 'emails' });
      await runMaintenancePass(backend);
      const result = await indicator.isHealthy('queue', { alias: alias });
      expect(result.queue).toMatchObject({
        status: 'up',
        backend: alias,
        queues: {
          default: { ready: 1, running: 0, deferred: 0, successful: 0, failed: 0, ingress: 1 },
          emails: { ready: 1, ingress: 1, egress: 0, failedInWindow: 0 },
        },
      });
      expect(result.queue.heartbeatAgeMs).toBeGreaterThanOrEqual(0);
      expect(result.queue.heartbeatAgeMs).toBeLessThan(1000);
    });

    it('turns down when the heartbeat is older than the limit', async () => {
      await runMaintenancePass(backend);
      const beat = (await backend.reads.maintenanceHeartbeat())!.getTime();
      await waitFor(() => Date.now() - beat > 150, { what: 'the heartbeat to age' });
      const result = await indicator.isHealthy('queue', {
        alias: alias,
        maxHeartbeatAgeMs: 100,
      });
      expect(result.queue.status).toBe('down');
      expect(result.queue.message).toMatch(/last maintenance pass is \d+ ms old \(limit 100 ms\)/);
    });

    it('defaults the heartbeat limit to three maintenance intervals, at least 3 s', async () => {
      await runMaintenancePass(backend);
      const result = await indicator.isHealthy('queue', { alias: alias });
      expect(result.queue.status).toBe('up');
    });

    it('turns down when a queue crosses a threshold, naming queue and limit', async () => {
      await runMaintenancePass(backend);
      await tasks.enqueue(HealthTasks, 'noop', [], { alias: alias });
      await tasks.enqueue(HealthTasks, 'noop', [], { alias: alias });
      const within = await indicator.isHealthy('queue', {
        alias: alias,
        thresholds: { maxReady: 2 },
      });
      expect(within.queue.status).toBe('up');
      const over = await indicator.isHealthy('queue', {
        alias: alias,
        thresholds: { maxReady: 1, maxFailedInWindow: 0 },
      });
      expect(over.queue.status).toBe('down');
      expect(over.queue.message).toBe('Queue "default": maxReady is 2, above the limit of 1.');
      expect(over.queue.queues).toMatchObject({ default: { ready: 2 } });
    });

    it('reports a paused queue in its details, up, its backlog not held to maxReady', async () => {
      await runMaintenancePass(backend);
      await backend.control.pauseQueue('emails');
      await tasks.enqueue(HealthTasks, 'noop', [], { alias: alias, queue: 'emails' });
      await tasks.enqueue(HealthTasks, 'noop', [], { alias: alias, queue: 'emails' });
      const result = await indicator.isHealthy('queue', {
        alias: alias,
        thresholds: { maxReady: 1 },
      });
      expect(result.queue).toMatchObject({
        status: 'up',
        queues: { default: { paused: 0 }, emails: { paused: 1, ready: 2 } },
      });
      await backend.control.resumeQueue('emails');
      const resumed = await indicator.isHealthy('queue', {
        alias: alias,
        thresholds: { maxReady: 1 },
      });
      expect(resumed.queue.status).toBe('down');
      expect(resumed.queue.message).toBe('Queue "emails": maxReady is 2, above the limit of 1.');
    });

    it('can leave the maintenance check out, for a web app probe', async () => {
      const result = await indicator.isHealthy('queue', {
        alias: alias,
        requireMaintenance: false,
      });
      expect(result.queue.status).toBe('up');
    });
  });

  it('is down within its timeout when Redis does not answer, without leaking the password', async () => {
    const port = await freePort();
    await boot(`redis://user:s3cret-pass@127.0.0.1:${port}`, { connectTimeout: 200 });
    const started = Date.now();
    const result = await indicator.isHealthy('queue', { alias: alias, timeoutMs: 500 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.queue.status).toBe('down');
    expect(result.queue.message).toContain(`Backend "${alias}" did not answer`);
    expect(JSON.stringify(result)).not.toContain('s3cret-pass');
  });

  describe('on a Redis that keeps nothing on disk', () => {
    let server: RedisServerHandle;
    beforeEach(async () => {
      server = await startRedisServer(['--save', '', '--appendonly', 'no']);
      await boot(server.url, { connectTimeout: 1000 });
    });
    afterEach(() => server.stop());

    it('is up but degraded, with a warning; down, naming the loss, once a restart emptied it', async () => {
      const error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      try {
        await tasks.enqueue(HealthTasks, 'noop', [], { alias: alias });
        await runMaintenancePass(backend);
        const degraded = await indicator.isHealthy('queue', { alias: alias });
        expect(degraded.queue).toMatchObject({
          status: 'up',
          warnings: [
            `Backend "${alias}": its store keeps nothing on disk, so a restart of it loses every task, waiting, running or finished.`,
          ],
        });

        await server.stop();
        server = await startRedisServer(['--save', '', '--appendonly', 'no'], server.port);
        // The pass that follows the reconnect finds the mark gone; it rewrites the heartbeat.
        await waitFor(
          () => runMaintenancePass(backend).then(() => backend.storeCondition?.()?.dataLost),
          { what: 'the backend to reconnect and find the data gone' },
        );
        const down = await indicator.isHealthy('queue', { alias: alias });
        expect(down.queue.status).toBe('down');
        expect(down.queue.message).toMatch(
          new RegExp(`^Threadmill backend "${alias}": the data in Redis at .* is gone\\.`),
        );
        expect(down.queue.queues).toMatchObject({ default: { ready: 0 } });
      } finally {
        error.mockRestore();
        warn.mockRestore();
      }
    });
  });
});
