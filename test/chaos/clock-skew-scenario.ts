import { existsSync, readFileSync } from 'node:fs';

import type { TaskBackend } from '../../lib/core/task-backend.interface';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { startCli, type RunningCli } from '../helpers/cli-process';
import { skewedClock } from '../helpers/skewed-clock';
import { waitFor } from '../helpers/wait-for';
import {
  audit,
  auditLine,
  chaosRecord,
  report,
  settledAt,
  type RunningPool,
} from './chaos-harness';

// Two pools of the real CLI on one store, on hosts whose clocks are 20
// minutes apart: one runs under libfaketime 10 minutes ahead, the other 10
// minutes behind (the store keeps the real time, this process's). Default
// settings but a 2-minute lease, so a lease read on the wrong clock would be
// ended too. They drain a backlog, deferred tasks enqueued from the command
// line on either clock (--delay, and a --run-after 5 s ahead on the
// enqueuer's own clock), and tasks that fail once and retry after a fixed
// backoff. No task may be lost, stuck, run twice or failed (no WorkerLost,
// no AcknowledgementTimeout), no deferred task may start before it is due
// and no retry before its backoff, on the store's clock.

export const SKEW_MS = 10 * 60_000;
const LEASE_TTL_MS = 120_000;
const DRAIN_TASKS = 600;
const TASK_MS = 50;
const FLAKY_TASKS = 24;
const BACKOFF_MS = 2000;
const DEFERRED_PER_ENQUEUER = 10;
export const DEFER_MS = 5000;
const THREADS = 4;
/** Everything must have settled this long after the first enqueue. */
const SETTLE_WITHIN_MS = 40_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/gm;

/** Where the scenario runs: a store, a backend on it for the test's reads, and how to start pools. */
export interface ClockSkewStage {
  /** The store's name in the report line, e.g. 'Postgres'. */
  store: string;
  alias: string;
  backend: Pick<TaskBackend, 'tasks' | 'reads'>;
  journal: string;
  /** The environment that points the sample's pools and commands at the store and alias. */
  env: Record<string, string>;
  startPool(args: readonly string[], env: Record<string, string>): RunningPool;
  /** Holds the enqueuers the scenario starts, for the caller to kill after. */
  started: RunningCli[];
}

/** What the scenario measured, for a store's own extra checks. */
export interface ClockSkewRun {
  delayedIds: string[];
  /** Epoch ms (this process's clock) of the --delay enqueue. */
  delayedFrom: number;
  children: { ahead: number[]; behind: number[] };
}

/** One attempt of a flaky task, as its journal line says: which process ran it, on what clock. */
interface Attempt {
  id: string;
  attempt: number;
  pid: number;
  clock: number;
}

function readAttempts(journal: string): Attempt[] {
  if (!existsSync(journal)) return [];
  return readFileSync(journal, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [id, attempt, pid, clock] = line.split(' ');
      return { id, attempt: Number(attempt), pid: Number(pid), clock: Number(clock) };
    });
}

function flakyRecord(alias: string, journal: string): TaskRecord {
  const base = chaosRecord(alias, journal, 0);
  return {
    ...base,
    task: {
      ...base.task,
      name: 'chaos.flaky',
      retries: 1,
      backoff: { type: 'fixed', delayMs: BACKOFF_MS, jitter: false },
    },
    args: [journal],
  };
}

const startsAfter = (
  backend: ClockSkewStage['backend'],
  ids: readonly string[],
  from: number,
): Promise<number[]> =>
  Promise.all(
    ids.map(async (id) => (await backend.tasks.getResult(id)).startedAt!.getTime() - from),
  );

/** Runs the scenario on `stage`, asserts everything it promises, and stops its pools. */
export async function runClockSkew(stage: ClockSkewStage): Promise<ClockSkewRun> {
  const { alias, backend, journal } = stage;
  const flakyJournal = `${journal}.flaky`;
  const env = { ...stage.env, THREADMILL_LEASE_TTL_MS: String(LEASE_TTL_MS) };
  const args = ['--alias', alias, '--processes', '1', '--threads', String(THREADS)];
  const pools: Record<'ahead' | 'behind', RunningPool> = {
    ahead: stage.startPool(args, { ...env, ...skewedClock('+10m') }),
    behind: stage.startPool(args, { ...env, ...skewedClock('-10m') }),
  };
  const children = await waitFor(
    () => {
      const ahead = pools.ahead.liveChildren();
      const behind = pools.behind.liveChildren();
      return ahead.length > 0 && behind.length > 0 ? { ahead, behind } : null;
    },
    { timeoutMs: 30_000, intervalMs: 50, what: 'both pools to have a ready child' },
  );
  // The children inherit the skewed clock (fork passes the pool's environment on).
  for (const [side, pids] of Object.entries(children)) {
    for (const pid of pids) {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      expect(environ).toContain(`FAKETIME=${side === 'ahead' ? '+10m' : '-10m'}`);
    }
  }
  const skewOf = new Map<number, number>([
    ...children.ahead.map((pid): [number, number] => [pid, SKEW_MS]),
    ...children.behind.map((pid): [number, number] => [pid, -SKEW_MS]),
  ]);

  // Flaky tasks first, so both pools' first batches take some.
  const flaky = Array.from({ length: FLAKY_TASKS }, () => flakyRecord(alias, flakyJournal));
  const drain = Array.from({ length: DRAIN_TASKS }, () => chaosRecord(alias, journal, TASK_MS));
  const startedAt = Date.now();
  await backend.tasks.enqueueMany([...flaky, ...drain]);

  // Deferred tasks from the command line, one enqueuer on either clock.
  const enqueue = (extra: string[], clock: Record<string, string>): RunningCli =>
    startCli(
      [
        'enqueue',
        'chaos.record',
        '--alias',
        alias,
        '--args',
        JSON.stringify([journal, 0]),
        '--count',
        String(DEFERRED_PER_ENQUEUER),
        ...extra,
      ],
      { ...env, ...clock, THREADMILL_LOG_LEVEL: 'warn' },
      stage.started,
    );
  const delayedFrom = Date.now();
  const delayed = enqueue(['--delay', String(DEFER_MS)], skewedClock('-10m'));
  // 5 s ahead on the enqueuer's clock, which is 10 minutes ahead of ours and the store's.
  const runAfterFrom = Date.now();
  const runAfter = new Date(runAfterFrom + SKEW_MS + DEFER_MS).toISOString();
  const scheduled = enqueue(['--run-after', runAfter], skewedClock('+10m'));
  const idsOf = async (cli: RunningCli): Promise<string[]> => {
    const { code } = await cli.exited;
    expect({ code, output: code === 0 ? '' : cli.output() }).toEqual({ code: 0, output: '' });
    return cli.output().match(UUID) ?? [];
  };
  const delayedIds = await idsOf(delayed);
  const scheduledIds = await idsOf(scheduled);
  expect(delayedIds).toHaveLength(DEFERRED_PER_ENQUEUER);
  expect(scheduledIds).toHaveLength(DEFERRED_PER_ENQUEUER);

  const settled = await settledAt(backend, SETTLE_WITHIN_MS);
  const ids = [...drain.map((r) => r.id), ...delayedIds, ...scheduledIds];
  const result = await audit(backend, ids, journal);

  // Deferred tasks: started (on the store's clock) no sooner than due, none long after.
  const delayedAfter = await startsAfter(backend, delayedIds, delayedFrom);
  const scheduledAfter = await startsAfter(backend, scheduledIds, runAfterFrom);

  // Flaky tasks: each attempt ran once, the retry no sooner than its backoff.
  const flakyRecords = await Promise.all(flaky.map((r) => backend.tasks.getResult(r.id)));
  const attempts = readAttempts(flakyJournal);
  const gaps = flakyRecords.map((r) => r.lastAttemptedAt!.getTime() - r.startedAt!.getTime());
  const runsPerAttempt = new Map<string, number>();
  for (const { id, attempt } of attempts) {
    const key = `${id}#${attempt}`;
    runsPerAttempt.set(key, (runsPerAttempt.get(key) ?? 0) + 1);
  }
  // Each attempt ran on a skewed clock: its own reading, against the store's start of the attempt.
  const offsets = attempts.map(({ id, attempt, pid, clock }) => {
    const record = flakyRecords.find((r) => r.id === id)!;
    const leasedAt = (attempt === 1 ? record.startedAt : record.lastAttemptedAt)!.getTime();
    return { expected: skewOf.get(pid), off: clock - leasedAt };
  });

  const logs = `${pools.ahead.output()}\n${pools.behind.output()}`;
  report(
    auditLine(
      `two pools on ${stage.store} 20 minutes apart (libfaketime +10m and -10m)`,
      result,
      `settled ${settled === null ? 'never' : `${settled - startedAt} ms`} after the first ` +
        `enqueue; ${FLAKY_TASKS} flaky tasks: ` +
        `${flakyRecords.filter((r) => r.status === TaskResultStatus.SUCCESSFUL).length} ` +
        `SUCCESSFUL on their retry, retried ${Math.min(...gaps)}-${Math.max(...gaps)} ms after ` +
        `their first start (backoff ${BACKOFF_MS} ms); deferred ${DEFER_MS} ms: --delay from ` +
        `the clock behind started ${Math.min(...delayedAfter)}-${Math.max(...delayedAfter)} ms ` +
        `after the enqueue, --run-after from the clock ahead ` +
        `${Math.min(...scheduledAfter)}-${Math.max(...scheduledAfter)} ms after it was set`,
    ),
  );
  if (settled === null || result.stuck.length > 0) report(logs.slice(-6000));

  expect(settled).not.toBeNull();
  expect(result).toMatchObject({
    successful: ids.length,
    failed: {},
    lost: [],
    stuck: [],
    duplicates: [],
    successWithoutRun: [],
    ranThenFailed: 0,
  });
  expect(result.executions).toBe(ids.length);
  for (const after of [...delayedAfter, ...scheduledAfter]) {
    expect(after).toBeGreaterThanOrEqual(DEFER_MS);
    expect(after).toBeLessThan(DEFER_MS + 15_000);
  }
  expect(flakyRecords.map((r) => [r.status, r.errors.map((e) => e.className)])).toEqual(
    flaky.map(() => [TaskResultStatus.SUCCESSFUL, ['Error']]),
  );
  expect([...runsPerAttempt.values()]).toEqual(flaky.flatMap(() => [1, 1]));
  for (const gap of gaps) {
    // The store's clock stamps both starts in whole ms.
    expect(gap).toBeGreaterThanOrEqual(BACKOFF_MS - 2);
    expect(gap).toBeLessThan(BACKOFF_MS + 10_000);
  }
  for (const { expected, off } of offsets) {
    expect(expected).toBeDefined();
    expect(Math.abs(off - expected!)).toBeLessThan(5000);
  }
  // Both clocks ran flaky attempts.
  expect(new Set(offsets.map((o) => o.expected))).toEqual(new Set([SKEW_MS, -SKEW_MS]));
  expect(logs).not.toMatch(/stopped beating|whose lease ended|leases nothing/);

  for (const pool of Object.values(pools)) pool.process.kill('SIGTERM');
  for (const pool of Object.values(pools)) {
    expect((await pool.exited).code).toBe(0);
  }
  return { delayedIds, delayedFrom, children };
}
