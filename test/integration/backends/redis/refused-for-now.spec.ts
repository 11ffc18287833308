import { Redis } from 'ioredis';

import { RedisBackend } from '../../../../lib/backends/redis/redis.backend';
import { BackendUnavailableError } from '../../../../lib/core/errors/backend-unavailable.error';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import {
  liftFileSizeLimit,
  startRedisServer,
  type RedisServerHandle,
} from '../../../helpers/redis-server';
import { testAlias } from '../../../helpers/test-alias';
import { waitFor } from '../../../helpers/wait-for';
import { readyRecord } from './redis-fixture';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// A Redis that cannot write its append-only file refuses every write with
// MISCONF until a write succeeds again, which it retries by itself. That is a
// refusal for now, not a broken command: the caller is told it may retry, and
// the same call goes through once the disk has room. On a private
// redis-server whose file size limit plays the full disk.

/** Far below what the enqueues below write: the append-only file outgrows it within a few dozen. */
const FILE_SIZE_LIMIT_BYTES = 64 * 1024;
const PAYLOAD = 'x'.repeat(2000);

describe('Redis refuses writes with `MISCONF` (AOF disk full, `everysec`)', () => {
  let server: RedisServerHandle;
  let admin: Redis;
  let backend: RedisBackend;

  beforeAll(async () => {
    server = await startRedisServer(
      ['--appendonly', 'yes', '--appendfsync', 'everysec'],
      undefined,
      {
        fileSizeLimitBytes: FILE_SIZE_LIMIT_BYTES,
      },
    );
    admin = new Redis(server.url);
    backend = new RedisBackend(
      testAlias(),
      {
        backend: RedisBackend,
        url: server.url,
        queues: ['default'],
      },
      storeRules,
    );
  });
  afterAll(async () => {
    await backend.close();
    await admin.quit();
    await server.stop();
  });

  it('is a retryable BackendUnavailableError, and the same enqueue goes through once Redis can write again', async () => {
    const acknowledged: TaskRecord[] = [];
    let refused: unknown = null;
    // Each acknowledged enqueue was applied in memory; its append-only write fails
    // after the reply, and Redis then refuses the next write.
    while (refused === null && acknowledged.length < 1000) {
      const record = readyRecord(backend.alias, { args: [PAYLOAD] });
      await backend.tasks.enqueue(record).then(
        () => acknowledged.push(record),
        (error: unknown) => (refused = error),
      );
    }
    expect(refused).toBeInstanceOf(BackendUnavailableError);
    expect(refused).toMatchObject({ code: 'BACKEND_UNAVAILABLE', retryable: true });
    const { message } = refused as Error;
    expect(message).toMatch(
      /refused enqueue\.lua for now \(MISCONF Errors writing to the AOF file/,
    );
    expect(message).toMatch(/nothing of it ran/);
    expect(message).toMatch(/persistence files again .* retry the same call/);
    expect((await admin.info('persistence')).includes('aof_last_write_status:err')).toBe(true);

    // Refused again while the disk stays full, and nothing of it stored.
    const record = readyRecord(backend.alias, { args: [PAYLOAD] });
    await expect(backend.tasks.enqueue(record)).rejects.toMatchObject({ retryable: true });

    // The disk has room again: Redis finds out by itself, and the caller's retry goes through.
    await liftFileSizeLimit(server);
    const stored = await waitFor(() => backend.tasks.enqueue(record).catch(() => null), {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the retried enqueue to go through',
    });
    expect(stored).toEqual(record);
    expect((await backend.tasks.getResult(record.id)).status).toBe(TaskResultStatus.READY);
    const { counts } = (await backend.reads.telemetry(1000)).queues.default;
    expect(counts.ready).toBe(acknowledged.length + 1);
    expect((await admin.info('persistence')).includes('aof_last_write_status:ok')).toBe(true);
  });
});
