import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';

import { RedisKeys } from '../../lib/backends/redis/redis-keys';
import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { InvalidTaskError } from '../../lib/core/errors/invalid-task.error';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { Task, TaskService } from '../../lib';
import { chaosRecord, readJournal } from '../chaos/chaos-harness';
import { cliStage } from '../helpers/cli-stage';
import { waitFor } from '../helpers/wait-for';

// Bad stored data reaches a real pool: each bad task ends FAILED with its
// reason, the consumer takes the next task (no crash, no loop), and the good
// tasks around them run. Bad input on the command line is refused with exit
// code 2 and a message that says why. Enqueue-side bad input is in
// test/integration/bad-input.spec.ts; unknown task names in security.e2e-spec.ts.

const MIB = 1024 * 1024;

/** JSON of an args list nested `levels` deep, the list itself counting as one. */
const nestedArgsJson = (levels: number): string =>
  `${'['.repeat(levels)}"leaf"${']'.repeat(levels)}`;

@Injectable()
class DeepArgsTasks {
  @Task({ name: 'bad-input.echo' })
  echo(value: unknown): unknown {
    return value;
  }
}

describe('bad input (e2e: real CLI and Redis)', () => {
  jest.setTimeout(120_000);
  const stage = cliStage();
  let alias: string;
  let backend: RedisBackend;
  let redis: Redis;
  let workDir: string;

  beforeEach(() => {
    ({ alias, backend, redis } = stage);
    workDir = mkdtempSync(join(tmpdir(), 'threadmill-bad-input-'));
  });

  afterEach(() => {
    rmSync(workDir, { recursive: true, force: true });
  });

  it('fails corrupt, oversized and mistyped task data with CorruptTaskDataError and goes on', async () => {
    const journal = join(workDir, 'journal.log');
    const keys = new RedisKeys(alias);
    const notJson = chaosRecord(alias, journal, 0);
    const huge = chaosRecord(alias, journal, 0);
    const noFields = chaosRecord(alias, journal, 0);
    const wrongType = chaosRecord(alias, journal, 0);
    const good = Array.from({ length: 5 }, () => chaosRecord(alias, journal, 0));
    // Bad ones first, so the consumer meets them before the good ones.
    await backend.tasks.enqueueMany([notJson, huge, noFields, wrongType, ...good]);
    await redis.hset(keys.task(notJson.id), 'data', '{"task": not json');
    // Bigger than any record the default 1 MiB limit lets enqueue write.
    await redis.hset(keys.task(huge.id), 'data', `"${'x'.repeat(4 * MIB)}"`);
    await redis.hset(keys.task(noFields.id), 'data', '{"args":[]}');
    await redis.del(keys.task(wrongType.id));
    await redis.set(keys.task(wrongType.id), 'a string where a hash belongs');

    const pool = stage.start(['worker', '--alias', alias, '--processes', '1', '--threads', '2']);
    const all = [notJson, huge, noFields, wrongType, ...good];
    const done = await waitFor(
      async () => {
        const records = await Promise.all(all.map((r) => backend.tasks.getResult(r.id)));
        return records.every(
          (r) => r.status === TaskResultStatus.SUCCESSFUL || r.status === TaskResultStatus.FAILED,
        )
          ? records
          : null;
      },
      { timeoutMs: 60_000, intervalMs: 50, what: 'every task to finish' },
    );
    const [notJsonDone, hugeDone, noFieldsDone, wrongTypeDone, ...goodDone] = done;
    const reason = (record: TaskRecord) => [record.status, record.errors[0]?.className];
    expect(reason(notJsonDone)).toEqual([TaskResultStatus.FAILED, 'CorruptTaskDataError']);
    expect(notJsonDone.errors[0].traceback).toContain(
      `task ${notJson.id} cannot be read (not JSON)`,
    );
    expect(reason(hugeDone)).toEqual([TaskResultStatus.FAILED, 'CorruptTaskDataError']);
    expect(hugeDone.errors[0].traceback).toMatch(
      /its data is \d+ bytes, over the 3145728 bytes a task of this backend may hold/,
    );
    expect(reason(noFieldsDone)).toEqual([TaskResultStatus.FAILED, 'CorruptTaskDataError']);
    expect(noFieldsDone.errors[0].traceback).toContain('missing or malformed fields');
    expect(reason(wrongTypeDone)).toEqual([TaskResultStatus.FAILED, 'CorruptTaskDataError']);
    expect(goodDone.map((r) => r.status)).toEqual(good.map(() => TaskResultStatus.SUCCESSFUL));
    // None of the bad ones ran; every good one ran once.
    expect([...readJournal(journal).entries()].sort()).toEqual(
      good.map((r): [string, number] => [r.id, 1]).sort(),
    );
    // The consumer went on: the same child, no crash, no restart loop.
    expect(pool.output()).not.toMatch(/Worker child \d+ (exited|died)/);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });

  it('args nested 5,000 levels are refused with InvalidTaskError and the CLI exits 2', async () => {
    const refusal = 'the arrays and objects of its args are nested more than 100 levels deep';
    const outcome = await stage.command(['enqueue', 'sample.echo', '--args', nestedArgsJson(5000)]);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toContain(`error: Task "sample.echo": ${refusal}`);
    expect(outcome.stderr).not.toContain('RangeError');
    // The same args through TaskService, in an app of the test's own.
    const app = await stage.appContext([DeepArgsTasks]);
    try {
      const args = JSON.parse(nestedArgsJson(5000)) as unknown[];
      const refused = app.get(TaskService).enqueueByName('bad-input.echo', [args]);
      await expect(refused).rejects.toThrow(InvalidTaskError);
      await expect(refused).rejects.toThrow(refusal);
    } finally {
      await app.close();
    }
    await expect(backend.reads.peek('default', 'ready', 10)).resolves.toEqual([]);
  });

  it.each([
    ['task', (name: string) => ['enqueue', name]],
    ['queue', (name: string) => ['enqueue', 'sample.echo', '--queue', name]],
    ['alias', (name: string) => ['enqueue', 'sample.echo', '--alias', name]],
  ])(
    'a queue, task or alias name with a newline is printed escaped in the refusal: %s',
    async (_what, command) => {
      const name = 'nope\nerror: forged line';
      const outcome = await stage.command(command(name));
      expect(outcome.code).toBe(2);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr).toContain(JSON.stringify(name));
      // Only the refusal's own line starts with "error:".
      const lines = outcome.stderr.split('\n');
      expect(lines.filter((line) => line.startsWith('error:'))).toHaveLength(1);
      expect(lines.filter((line) => line.includes('forged line') && !line.includes('\\n'))).toEqual(
        [],
      );
    },
  );
});
