import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import Redis from 'ioredis';

import { RedisKeys } from '../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { TaskResultStatus, type TaskRecord } from '../../lib/core';
import { startCli, type RunningCli } from '../helpers/cli-process';
import { readyRecord } from '../helpers/ready-record';
import { removeAliasKeys } from '../helpers/redis-cleanup';
import { testAlias } from '../helpers/test-alias';
import { testRedisUrl } from '../helpers/test-redis-url';
import { waitFor } from '../helpers/wait-for';
import { SAMPLE_DIST } from '../setup/build-sample-cli';

// Cancelling on the real CLI and a real pool: a running task's signal aborted
// by the pool that holds it, a waiting task that never runs, and the
// `cancel` command's output and exit codes.

const ROOT = join(__dirname, '..', '..');
const CLI = join(SAMPLE_DIST, 'test', 'fixtures', 'worker', 'worker-main.js');

describe('cancelling tasks (e2e: real CLI, pool and Redis)', () => {
  jest.setTimeout(60_000);
  let alias: string;
  let backend: RedisBackend;
  let redis: Redis;
  const started: RunningCli[] = [];

  beforeEach(() => {
    alias = testAlias();
    backend = new RedisBackend(alias, {
      backend: RedisBackend,
      url: testRedisUrl(),
      queues: ['default', 'emails'],
    });
    redis = new Redis(testRedisUrl());
  });

  afterEach(async () => {
    for (const cli of started.splice(0)) await cli.killGroup();
    await backend.close();
    await removeAliasKeys(redis, alias);
    await redis.quit();
  });

  const env = (): Record<string, string> => ({
    REDIS_URL: testRedisUrl(),
    THREADMILL_ALIAS: alias,
    THREADMILL_MAINTENANCE_INTERVAL_MS: '1000',
  });

  /** Runs a command to its end. */
  function run(args: readonly string[]): Promise<{ code: number | null; stdout: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [CLI, ...args],
        { cwd: ROOT, env: { ...process.env, ...env(), NO_COLOR: '1' } },
        (error, stdout) => {
          resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout });
        },
      );
    });
  }

  /** Every pool's cancel request set of this alias that exists. */
  async function cancelKeys(): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(
        cursor,
        'MATCH',
        `${new RedisKeys(alias).cancelsPrefix}*`,
        'COUNT',
        1000,
      );
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
    return found;
  }

  const statusOf = async (id: string): Promise<TaskResultStatus> =>
    (await backend.getResult(id)).status;

  it('stops a running 60 s sample.sleep within 2 s, CANCELLED, and its slot takes the next task', async () => {
    const sleeper = readyRecord(alias, { name: 'sample.sleep', args: [60_000] });
    const next = readyRecord(alias, { name: 'sample.echo', args: ['next'] });
    await backend.enqueueMany([sleeper, next]);
    startCli(['worker', '--backend', alias, '--processes', '1', '--threads', '1'], env(), started);
    await waitFor(async () => (await statusOf(sleeper.id)) === TaskResultStatus.RUNNING, {
      timeoutMs: 30_000,
      what: 'the sleep running',
    });
    expect(await statusOf(next.id)).toBe(TaskResultStatus.READY);

    const asked = Date.now();
    await expect(backend.cancel(sleeper.id)).resolves.toMatchObject({ outcome: 'requested' });
    const cancelled = await waitFor(
      async () => {
        const record = await backend.getResult(sleeper.id);
        return record.status === TaskResultStatus.CANCELLED ? record : null;
      },
      { timeoutMs: 2_000, intervalMs: 25, what: 'the sleep CANCELLED' },
    );
    expect(Date.now() - asked).toBeLessThan(2_000);
    expect(cancelled.errors.at(-1)?.className).toBe('TaskCancelledError');
    expect(cancelled.workerIds).toHaveLength(1);
    const done: TaskRecord = await waitFor(
      async () => {
        const record = await backend.getResult(next.id);
        return record.status === TaskResultStatus.SUCCESSFUL ? record : null;
      },
      { timeoutMs: 10_000, what: 'the next task done in the freed slot' },
    );
    expect(done.returnValue).toEqual(['next']);
    // The request was handled, so it was removed (an empty ZSET is no key).
    await waitFor(async () => (await cancelKeys()).length === 0, { what: 'the request removed' });
  });

  it('hard-stops a task that ignores its signal: its child is replaced, the others it held are released', async () => {
    const stubborn = readyRecord(alias, { name: 'fixture.ignoresCancel' });
    const neighbour = readyRecord(alias, { name: 'sample.sleep', args: [1_500] });
    await backend.enqueueMany([stubborn, neighbour]);
    const pool = startCli(
      ['worker', '--backend', alias, '--processes', '1', '--threads', '2'],
      env(),
      started,
    );
    await waitFor(
      async () =>
        (await statusOf(stubborn.id)) === TaskResultStatus.RUNNING &&
        (await statusOf(neighbour.id)) === TaskResultStatus.RUNNING,
      { timeoutMs: 30_000, what: 'both tasks running in one child' },
    );
    await backend.cancel(stubborn.id);
    const cancelled = await waitFor(
      async () => {
        const record = await backend.getResult(stubborn.id);
        return record.status === TaskResultStatus.CANCELLED ? record : null;
      },
      { timeoutMs: 10_000, what: 'the stubborn task CANCELLED' },
    );
    expect(cancelled.workerIds).toHaveLength(1);
    expect(pool.output()).toContain(`still runs cancelled task ${stubborn.id}`);
    // Released, not failed: it runs again in the new child, with no error recorded.
    const again = await waitFor(
      async () => {
        const record = await backend.getResult(neighbour.id);
        return record.status === TaskResultStatus.SUCCESSFUL ? record : null;
      },
      { timeoutMs: 30_000, what: 'the neighbour done in the replacement child' },
    );
    expect(again.errors).toEqual([]);
    expect(new Set(again.workerIds.map((w) => /:(\d+)-\d+$/.exec(w)?.[1])).size).toBe(2);
  });

  it('cancel <id> of a waiting task prints "cancelled", and no worker ever runs it', async () => {
    const waiting = readyRecord(alias, { name: 'sample.echo', args: [1] });
    const other = readyRecord(alias, { name: 'sample.echo', args: [2] });
    await backend.enqueueMany([waiting, other]);

    const cancelled = await run(['cancel', waiting.id]);
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({
      outcome: 'cancelled',
      result: { id: waiting.id, status: 'CANCELLED' },
    });

    const pool = startCli(['worker', '--backend', alias, '--exit-empty'], env(), started);
    await expect(pool.exited).resolves.toMatchObject({ code: 0 });
    await expect(backend.getResult(other.id)).resolves.toMatchObject({
      status: TaskResultStatus.SUCCESSFUL,
    });
    await expect(backend.getResult(waiting.id)).resolves.toMatchObject({
      status: TaskResultStatus.CANCELLED,
      workerIds: [],
    });

    const again = await run(['cancel', waiting.id]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'already-final' });
  });

  it('cancel <id> of an unknown id exits 1 and prints nothing on stdout', async () => {
    const outcome = await run(['cancel', randomUUID()]);
    expect(outcome).toEqual({ code: 1, stdout: '' });
  });
});
