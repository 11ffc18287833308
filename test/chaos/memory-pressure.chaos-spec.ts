import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { StoreFullError } from '../../lib/core/errors/store-full.error';
import { UnsupportedStoreError } from '../../lib/core/errors/unsupported-store.error';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import type { RunningCli } from '../helpers/cli-process';
import { waitFor } from '../helpers/wait-for';
import {
  audit,
  auditLine,
  chaosRecord,
  chaosScenario,
  cliEnqueue,
  report,
  settled,
} from './chaos-harness';

// Redis runs out of memory under a running pool. With noeviction a full Redis
// refuses writes: enqueues past the limit must fail as StoreFullError (never as
// a duplicate id, never a usage error), while the pool goes on leasing and
// storing outcomes (the scripts that drain run over maxmemory), so nothing is
// lost, stuck or run twice, before or after memory is freed. A Redis that evicts keys instead would delete tasks
// silently, so it is refused at connect unless allowEviction says otherwise.

const MAXMEMORY = ['--maxmemory', '20mb'];
/** Long enough that the pool still has a backlog, and tasks in flight, when Redis fills up. */
const TASK_MS = 100;
const PROCESSES = 2;
const THREADS = 8;
/** What the producer leaves free of the 20 MB before it starts: a few thousand tasks. */
const HEADROOM_BYTES = 1_500_000;
/** Enqueues the producer tries at most, and how many refusals end it. */
const MAX_ENQUEUES = 20_000;
const REFUSALS = 50;
/**
 * How long Redis stays full once the producer hit the limit: long enough for
 * the pool to have drained part of the backlog on the full Redis.
 */
const FULL_FOR_MS = 8000;
/** A lease an outcome given up on runs out of within the test. */
const LEASE_TTL_MS = 15_000;

/** Used bytes of a Redis, from INFO memory. */
async function usedMemory(admin: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1] ?? 0);
}

function poolArgs(alias: string): string[] {
  return ['--alias', alias, '--processes', String(PROCESSES), '--threads', String(THREADS)];
}

describe('chaos: Redis reaches maxmemory under a running pool (noeviction)', () => {
  jest.setTimeout(180_000);
  const scenario = chaosScenario([...MAXMEMORY, '--maxmemory-policy', 'noeviction']);

  it('refuses enqueues past the limit as StoreFullError, loses nothing, and drains while full', async () => {
    const stage = scenario.stage('noeviction');
    const { alias, backend, journal } = stage;
    const admin = new Redis(scenario.server().url);
    try {
      const pool = scenario.startPool(poolArgs(alias), {
        ...stage.env,
        THREADMILL_MAINTENANCE_INTERVAL_MS: '500',
        THREADMILL_LEASE_TTL_MS: String(LEASE_TTL_MS),
      });
      await waitFor(() => pool.liveChildren().length === PROCESSES, {
        timeoutMs: 60_000,
        what: 'the pool children to be ready',
      });
      // Most of the 20 MB goes to keys that are not Threadmill's, so the limit comes soon;
      // in pieces, since a command's own arguments count against maxmemory too.
      const piece = 'x'.repeat(512 * 1024);
      for (let i = 0; (await usedMemory(admin)) < 20 * 1024 * 1024 - HEADROOM_BYTES; i++) {
        await admin.set(`filler:${i}`, piece);
      }

      const acknowledged: string[] = [];
      const refusals: Record<string, number> = {};
      let refused = 0;
      for (let i = 0; i < MAX_ENQUEUES && refused < REFUSALS; i++) {
        const record: TaskRecord = chaosRecord(alias, journal, TASK_MS);
        try {
          await backend.tasks.enqueue(record);
          acknowledged.push(record.id);
        } catch (error) {
          refused++;
          const name = (error as Error).name;
          refusals[name] = (refusals[name] ?? 0) + 1;
        }
      }
      const fullAt = Date.now();
      const usedMb = ((await usedMemory(admin)) / 1024 / 1024).toFixed(1);
      const { counts } = (await backend.reads.telemetry(1000)).queues.default;
      const doneWhenFull = (await audit(backend, acknowledged, journal)).successful;
      // Redis stays full a while (the fault's duration, not a wait for an event).
      await new Promise((resolve) => setTimeout(resolve, FULL_FOR_MS - (Date.now() - fullAt)));
      // What the pool did meanwhile: leased and stored outcomes, none refused.
      const refusedInPool = pool.output().match(/StoreFullError/g)?.length ?? 0;
      const doneWhileFull = (await audit(backend, acknowledged, journal)).successful - doneWhenFull;
      await admin.config('SET', 'maxmemory', '0');

      const settledInTime = await settled(backend, LEASE_TTL_MS + 30_000);
      const result = await audit(backend, acknowledged, journal);
      report(
        auditLine(
          'Redis full (maxmemory 20mb, noeviction) under a busy pool',
          result,
          `${refused} enqueue(s) refused at ${usedMb} MB (${JSON.stringify(refusals)}) with ` +
            `${counts.ready} ready and ${counts.running} running; Redis full for ${FULL_FOR_MS} ms, ` +
            `${doneWhileFull} tasks done meanwhile, ${refusedInPool} StoreFullError(s) in the ` +
            `pool's log`,
        ),
      );
      if (!settledInTime || result.stuck.length > 0) report(pool.output().slice(-4000));

      expect(refusals).toEqual({ [StoreFullError.name]: REFUSALS });
      // The pool had work in flight while Redis was full, and went on with it.
      expect(counts.ready + counts.running).toBeGreaterThan(0);
      expect(doneWhileFull).toBeGreaterThan(0);
      expect(refusedInPool).toBe(0);
      expect(result.lost).toEqual([]);
      expect(result.stuck).toEqual([]);
      expect(result.duplicates).toEqual([]);
      expect(result.successWithoutRun).toEqual([]);
      expect(result.failed.CorruptTaskDataError ?? 0).toBe(0);
      // Every task that ran is SUCCESSFUL with its data: a refused acknowledge was held, not lost.
      expect(result.ranThenFailed).toBe(0);
      expect(result.successful).toBe(result.tasks);
      pool.process.kill('SIGTERM');
      expect((await pool.exited).code).toBe(0);
    } finally {
      await admin.quit();
    }
  });
});

describe('chaos: a Redis that evicts keys (allkeys-lru)', () => {
  jest.setTimeout(120_000);
  const scenario = chaosScenario([...MAXMEMORY, '--maxmemory-policy', 'allkeys-lru']);
  const clis: RunningCli[] = [];
  afterAll(async () => {
    for (const cli of clis.splice(0)) await cli.killGroup();
  });

  it('is refused at connect by producers and pools, and nothing is stored', async () => {
    const stage = scenario.stage('evicting');
    const { alias, backend, journal } = stage;
    const admin = new Redis(scenario.server().url);
    try {
      const tried = Array.from({ length: 20 }, () => chaosRecord(alias, journal, 0));
      const errors = await Promise.all(
        tried.map((record) => backend.tasks.enqueue(record).catch((e: unknown) => e)),
      );
      expect(errors.every((error) => error instanceof UnsupportedStoreError)).toBe(true);
      expect((errors[0] as Error).message).toMatch(/maxmemory-policy is allkeys-lru/);
      const cli = await cliEnqueue(stage, clis);
      expect(cli.code).toBe(1);
      expect(cli.output).toMatch(/maxmemory-policy is allkeys-lru/);
      // A pool refuses to start, saying why, instead of losing tasks later.
      const pool = scenario.startPool(poolArgs(alias), stage.env);
      expect((await pool.exited).code).toBe(1);
      expect(pool.output()).toMatch(/maxmemory-policy is allkeys-lru/);
      expect(pool.output()).not.toMatch(/Worker child \d+ started/);
      expect(await admin.dbsize()).toBe(0);
      const result = await audit(backend, [], journal);
      report(
        auditLine(
          'Redis with maxmemory-policy allkeys-lru',
          result,
          `${errors.length} enqueue(s) refused with UnsupportedStoreError, the CLI exited ` +
            `${cli.code}, the pool refused to start (exit 1); ${await admin.dbsize()} keys stored`,
        ),
      );
    } finally {
      await admin.quit();
    }
  });

  it('is used with allowEviction: true, with a warning, by producers and pools', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const stage = scenario.stage('evicting-allowed', { allowEviction: true });
    const { alias, backend, journal } = stage;
    try {
      const records = Array.from({ length: 200 }, () => chaosRecord(alias, journal, TASK_MS));
      await backend.tasks.enqueueMany(records);
      expect(
        warn.mock.calls.filter(([message]) => /allowEviction is set/.test(String(message))),
      ).toHaveLength(1);
      const pool = scenario.startPool(poolArgs(alias), {
        ...stage.env,
        THREADMILL_ALLOW_EVICTION: 'true',
      });
      const settledInTime = await settled(backend, 60_000);
      const result = await audit(
        backend,
        records.map((r) => r.id),
        journal,
      );
      report(
        auditLine(
          'Redis with allkeys-lru, allowEviction: true (memory never full)',
          result,
          'connected with a warning',
        ),
      );
      expect(settledInTime).toBe(true);
      expect(pool.output()).toMatch(/allowEviction is set/);
      expect(result.successful).toBe(records.length);
      expect(result.duplicates).toEqual([]);
      pool.process.kill('SIGTERM');
      expect((await pool.exited).code).toBe(0);
    } finally {
      warn.mockRestore();
    }
  });
});
