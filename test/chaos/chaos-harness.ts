import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { TaskResultDoesNotExist } from '../../lib/core/errors/task-result-does-not-exist.error';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { startCli, type RunningCli } from '../helpers/cli-process';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server';
import { testAlias } from '../helpers/test-alias';
import { waitFor } from '../helpers/wait-for';
import { storeRules } from '../../lib/lifecycle/store-rules';

// What every chaos scenario shares: pools of the real CLI in their own
// process groups (test/helpers/cli-process.ts), the journaling task and the audit.

/** The fixture task that journals each of its runs (test/fixtures/worker/chaos.tasks.ts). */
export const CHAOS_TASK = 'chaos.record';
export const CHAOS_QUEUES = ['default', 'emails'];

/** A pool started by startPool: a CLI process leading its own process group. */
export type RunningPool = RunningCli;

/** Spawns `threadmill worker` of the fixture CLI as the leader of its own process group. */
export function startPool(
  args: readonly string[],
  env: Record<string, string>,
  started: RunningPool[],
): RunningPool {
  return startCli(['worker', ...args], env, started);
}

/** One scenario's alias on its own Redis: a backend for the test's reads, and where its pools look. */
export interface ChaosStage {
  alias: string;
  backend: RedisBackend;
  /** The journal file the scenario's tasks append to. */
  journal: string;
  /** REDIS_URL and THREADMILL_ALIAS for its pools. */
  env: Record<string, string>;
}

/**
 * A describe block's own redis-server (started with `serverArgs`, e.g. a
 * maxmemory and its policy) and journal folder, started before its tests and
 * stopped afterwards with every pool (killed as a group) and backend it
 * handed out, also when a test fails halfway. `server()` is that Redis, for
 * a scenario that changes its settings or reads its INFO.
 */
export function chaosScenario(serverArgs: readonly string[] = []): {
  stage(name: string, options?: Record<string, unknown>): ChaosStage;
  startPool(args: readonly string[], env: Record<string, string>): RunningPool;
  server(): RedisServerHandle;
} {
  let redis: RedisServerHandle | undefined;
  let journalDir = '';
  const pools: RunningPool[] = [];
  const backends: RedisBackend[] = [];
  beforeAll(async () => {
    redis = await startRedisServer([...serverArgs]);
    journalDir = mkdtempSync(join(tmpdir(), 'threadmill-chaos-'));
  });
  afterAll(async () => {
    for (const pool of pools.splice(0)) await pool.killGroup();
    for (const backend of backends.splice(0)) await backend.close();
    await redis?.stop();
    if (journalDir) rmSync(journalDir, { recursive: true, force: true });
  });
  return {
    stage(name, options = {}) {
      if (!redis) throw new Error('chaosScenario: stage() is for tests, after beforeAll');
      const alias = testAlias();
      const backend = new RedisBackend(
        alias,
        {
          backend: RedisBackend,
          url: redis.url,
          queues: CHAOS_QUEUES,
          options,
        },
        storeRules,
      );
      backends.push(backend);
      const env = { REDIS_URL: redis.url, THREADMILL_ALIAS: alias };
      return { alias, backend, journal: join(journalDir, `${name}.log`), env };
    },
    startPool: (args, env) => startPool(args, env, pools),
    server() {
      if (!redis) throw new Error('chaosScenario: server() is for tests, after beforeAll');
      return redis;
    },
  };
}

/** A READY record of the journaling task, as a producer stores it. */
export function chaosRecord(
  alias: string,
  journal: string,
  ms: number,
  queue = 'default',
): TaskRecord {
  return {
    id: randomUUID(),
    task: { name: CHAOS_TASK, queue, priority: 0, runAfter: null, backend: alias },
    status: TaskResultStatus.READY,
    enqueuedAt: new Date(),
    startedAt: null,
    finishedAt: null,
    lastAttemptedAt: null,
    args: [journal, ms],
    errors: [],
    workerIds: [],
  };
}

/** How many times each task id was run, from the journal the task appends to. */
export function readJournal(journal: string): Map<string, number> {
  const runs = new Map<string, number>();
  if (!existsSync(journal)) return runs;
  for (const line of readFileSync(journal, 'utf8').split('\n')) {
    if (line) runs.set(line, (runs.get(line) ?? 0) + 1);
  }
  return runs;
}

export interface Audit {
  readonly tasks: number;
  readonly successful: number;
  /** FAILED tasks by the class name of their last error. */
  readonly failed: Record<string, number>;
  /** Ids that no longer exist (neither result nor live task). */
  readonly lost: string[];
  /** Ids still READY or RUNNING. */
  readonly stuck: string[];
  /** Runs journaled in total. */
  readonly executions: number;
  /** Ids journaled more than once. */
  readonly duplicates: string[];
  /** SUCCESSFUL ids with no run in the journal (must be none: it would mean a fake result). */
  readonly successWithoutRun: string[];
  /** Ids that ran (journaled) but ended FAILED: killed mid-run. */
  readonly ranThenFailed: number;
  /** The latest `finishedAt` of a SUCCESSFUL or FAILED id (epoch ms), or null when none finished. */
  readonly lastFinishedAt: number | null;
}

/** Reads every enqueued id back and cross-checks it with the journal. */
export async function audit(
  backend: Pick<TaskBackend, 'tasks'>,
  ids: readonly string[],
  journal: string,
): Promise<Audit> {
  const runs = readJournal(journal);
  const lost: string[] = [];
  const stuck: string[] = [];
  const successWithoutRun: string[] = [];
  const failed: Record<string, number> = {};
  let successful = 0;
  let ranThenFailed = 0;
  const records = await Promise.all(
    ids.map(async (id) => {
      try {
        return await backend.tasks.getResult(id);
      } catch (error) {
        if (error instanceof TaskResultDoesNotExist) return null;
        throw error;
      }
    }),
  );
  records.forEach((record, i) => {
    const id = ids[i];
    if (record === null) {
      lost.push(id);
    } else if (record.status === TaskResultStatus.SUCCESSFUL) {
      successful++;
      if (!runs.has(id)) successWithoutRun.push(id);
    } else if (record.status === TaskResultStatus.FAILED) {
      const reason = record.errors[record.errors.length - 1]?.className ?? 'unknown';
      failed[reason] = (failed[reason] ?? 0) + 1;
      if (runs.has(id)) ranThenFailed++;
    } else {
      stuck.push(`${id}:${record.status}`);
    }
  });
  const finishedAt = records
    .filter(
      (r) => r?.status === TaskResultStatus.SUCCESSFUL || r?.status === TaskResultStatus.FAILED,
    )
    .map((r) => r?.finishedAt?.getTime() ?? 0);
  const lastFinishedAt = finishedAt.length > 0 ? Math.max(...finishedAt) : null;
  const wanted = new Set(ids);
  let executions = 0;
  const duplicates: string[] = [];
  for (const [id, count] of runs) {
    if (!wanted.has(id)) continue;
    executions += count;
    if (count > 1) duplicates.push(id);
  }
  return {
    tasks: ids.length,
    successful,
    failed,
    lost,
    stuck,
    executions,
    duplicates,
    successWithoutRun,
    ranThenFailed,
    lastFinishedAt,
  };
}

/**
 * Waits until no queue has a READY, RUNNING or deferred task and says when
 * that was first seen (epoch ms, when the read that saw it answered: at most
 * one poll of 25 ms plus one read late, never early); null when it did not
 * happen in time (the audit then says which ids are stuck). A lost id never
 * shows in the counts: the audit finds those.
 */
export async function settledAt(
  backend: Pick<TaskBackend, 'reads'>,
  timeoutMs: number,
): Promise<number | null> {
  try {
    return await waitFor(
      async () => {
        const telemetry = await backend.reads.telemetry(1000);
        const idle = Object.values(telemetry.queues).every(
          (q) => q.counts.ready === 0 && q.counts.running === 0 && q.counts.deferred === 0,
        );
        return idle ? Date.now() : null;
      },
      { timeoutMs, intervalMs: 25, what: 'every queue to settle' },
    );
  } catch {
    // Not settled in time: the caller audits anyway and reports the stuck ids.
    return null;
  }
}

/** settledAt, as whether it happened in time. */
export async function settled(
  backend: Pick<TaskBackend, 'reads'>,
  timeoutMs: number,
): Promise<boolean> {
  return (await settledAt(backend, timeoutMs)) !== null;
}

/** The one-line audit a scenario prints (the README quotes these figures). */
export function auditLine(scenario: string, result: Audit, extra: string): string {
  const failed = Object.entries(result.failed)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  return (
    `[chaos] ${scenario}: ${result.tasks} tasks, ${result.successful} SUCCESSFUL, ` +
    `FAILED ${failed || '0'}, lost ${result.lost.length}, stuck ${result.stuck.length}, ` +
    `runs ${result.executions} (duplicates ${result.duplicates.length}, ran then failed ` +
    `${result.ranThenFailed}); ${extra}`
  );
}

/** Prints an audit line where jest shows it even for a passing test. */
export function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** The CLI's `enqueue` of one chaos task on a stage's alias: its exit code and output. */
export async function cliEnqueue(
  stage: ChaosStage,
  started: RunningCli[],
): Promise<{ code: number | null; output: string }> {
  const cli = startCli(
    ['enqueue', CHAOS_TASK, '--args', JSON.stringify([stage.journal, 0]), '--alias', stage.alias],
    { ...stage.env, THREADMILL_LOG_LEVEL: 'warn' },
    started,
  );
  const { code } = await cli.exited;
  return { code, output: cli.output() };
}
