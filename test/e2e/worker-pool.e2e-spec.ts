import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';

import type { TaskBackend } from '../../lib/core/task-backend.interface';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { acquireLanes } from '../../lib/worker/child/acquire-lanes';
import { SAME_STOP_WINDOW_MS } from '../../lib/worker/shutdown-signals';
import { STAGE_MAINTENANCE_INTERVAL_MS, STAGE_STORES } from '../helpers/cli-stage';
import { readyRecord } from '../helpers/ready-record';
import { waitFor } from '../helpers/wait-for';
import { workerStage } from '../helpers/worker-stage';

// The real `threadmill` CLI (test/helpers/cli-process.ts), real processes,
// real signals, and the run's real Redis or Postgres.
// Every test has its own backend alias (THREADMILL_ALIAS), so its own keys.

const taskRecord = (alias: string, name: string, args: unknown[], queue = 'default'): TaskRecord =>
  readyRecord(alias, { name, args, queue });

/**
 * The drain's threads per child: few enough for one acquire lane, so a
 * child's acquires go one at a time. With two lanes, two calls of one child
 * are out together; on Postgres a lease is dated when its call is sent, and
 * rows another lease holds count as taken (SKIP LOCKED), so the call sent
 * first can find the last "default" rows held by the one sent after it and
 * lease "emails" tasks dated before them: queue order kept, dates crossed.
 */
const DRAIN_THREADS = 4;

/** The pid part of a `host:pid-slot` worker id. */
const pidOf = (workerId: string): number => Number(/:(\d+)-\d+$/.exec(workerId)?.[1]);

const startedChildren = (output: string): number[] =>
  [...output.matchAll(/Worker child (\d+) started/g)].map((m) => Number(m[1]));

const readyChildren = (output: string): number[] =>
  [...output.matchAll(/Worker child (\d+) is ready/g)].map((m) => Number(m[1]));

describe.each(STAGE_STORES)(
  'threadmill worker (e2e: real CLI, processes, signals and %s)',
  (store) => {
    // Real processes on 2 shared cores: generous per test, though each takes seconds.
    jest.setTimeout(60_000);
    const w = workerStage(store);
    const { startCli, startWorker, results, untilStatus } = w;
    let alias: string;
    let backend: TaskBackend;

    beforeEach(() => {
      ({ alias, backend } = w);
    });

    it(`drains 500 tasks over 2 queues with --processes 2 --threads ${DRAIN_THREADS} --exit-empty, in queue order`, async () => {
      // The order below holds only for a child whose acquires go one at a time.
      expect(acquireLanes(DRAIN_THREADS)).toBe(1);
      const first = Array.from({ length: 250 }, (_, i) =>
        taskRecord(alias, 'sample.echo', [i], 'default'),
      );
      const second = Array.from({ length: 250 }, (_, i) =>
        taskRecord(alias, 'sample.echo', [i], 'emails'),
      );
      await backend.tasks.enqueueMany([...second, ...first]);
      const cli = startWorker([
        '--queues',
        'default',
        'emails',
        '--processes',
        '2',
        '--threads',
        String(DRAIN_THREADS),
        '--exit-empty',
      ]);
      const { code } = await cli.exited;
      expect({ code, output: code === 0 ? '' : cli.output() }).toEqual({ code: 0, output: '' });

      const done = await results([...first, ...second]);
      expect(done.filter((r) => r.status !== TaskResultStatus.SUCCESSFUL)).toEqual([]);
      expect(done.map((r) => r.returnValue)).toEqual([...first, ...second].map((r) => r.args));
      expect(done.every((r) => r.workerIds.length === 1)).toBe(true);
      // Each child acquires in sequence, so within a child every "default" task
      // started before any "emails" task (across children the clocks of two
      // processes would blur the comparison).
      const byChild = new Map<number, TaskRecord[]>();
      for (const record of done) {
        const pid = pidOf(record.workerIds[0]);
        byChild.set(pid, [...(byChild.get(pid) ?? []), record]);
      }
      for (const records of byChild.values()) {
        const lastDefault = Math.max(
          ...records.filter((r) => r.task.queue === 'default').map((r) => r.startedAt!.getTime()),
        );
        const firstEmails = Math.min(
          ...records.filter((r) => r.task.queue === 'emails').map((r) => r.startedAt!.getTime()),
        );
        expect(lastDefault).toBeLessThanOrEqual(firstEmails);
      }
    });

    it('on SIGTERM finishes and acknowledges the 8 running tasks, takes no more, and exits 0', async () => {
      const slow = Array.from({ length: 8 }, () => taskRecord(alias, 'sample.sleep', [3000]));
      const waiting = Array.from({ length: 4 }, () => taskRecord(alias, 'sample.echo', ['later']));
      await backend.tasks.enqueueMany(slow);
      const cli = startWorker(['--processes', '2', '--threads', '4']);
      await untilStatus(slow, TaskResultStatus.RUNNING);
      await backend.tasks.enqueueMany(waiting);
      const signalledAt = Date.now();
      cli.process.kill('SIGTERM');
      const { code } = await cli.exited;
      const tookMs = Date.now() - signalledAt;

      expect(code).toBe(0);
      // The tasks' own 3 s plus a margin for closing the app on a loaded machine.
      expect(tookMs).toBeLessThan(3000 + 4000);
      const done = await results(slow);
      expect(done.map((r) => r.status)).toEqual(slow.map(() => TaskResultStatus.SUCCESSFUL));
      expect((await results(waiting)).map((r) => r.status)).toEqual(
        waiting.map(() => TaskResultStatus.READY),
      );
    });

    it('on a second signal releases the unfinished tasks back to their queue and exits promptly', async () => {
      const slow = [taskRecord(alias, 'sample.sleep', [60_000])];
      await backend.tasks.enqueueMany(slow);
      const cli = startWorker(['--processes', '1', '--threads', '2']);
      await untilStatus(slow, TaskResultStatus.RUNNING);
      cli.process.kill('SIGTERM');
      await waitFor(() => cli.output().includes('Graceful stop'), { what: 'the graceful stop' });
      // Sooner, a signal would count as the same graceful stop. Counted from what the first one did,
      // which the pool did after it received it: a loaded pool may have received it late.
      await delay(SAME_STOP_WINDOW_MS);
      cli.process.kill('SIGINT');
      const { code } = await cli.exited;

      expect(code).toBe(0);
      const [released] = await results(slow);
      expect(released.status).toBe(TaskResultStatus.READY);
      expect(
        await backend.leases.acquire(['default'], { workerId: 'e2e:1-1', timeoutMs: 0 }),
      ).toHaveLength(1);
    });

    it('Ctrl-C on npx nest start (the terminal SIGINT and the forwarded one): one graceful stop, the running task finishes', async () => {
      const slow = [taskRecord(alias, 'sample.sleep', [1500])];
      await backend.tasks.enqueueMany(slow);
      const cli = startWorker(['--processes', '1', '--threads', '2']);
      await untilStatus(slow, TaskResultStatus.RUNNING);
      cli.process.kill('SIGINT');
      cli.process.kill('SIGINT');
      const { code } = await cli.exited;

      expect(code).toBe(0);
      expect(cli.output()).not.toContain('Urgent stop');
      expect((await results(slow)).map((r) => r.status)).toEqual([TaskResultStatus.SUCCESSFUL]);
    });

    it('fails the task of a child killed with SIGKILL at once, replaces the child, and goes on', async () => {
      const victim = taskRecord(alias, 'sample.sleep', [60_000]);
      await backend.tasks.enqueueMany([victim]);
      const cli = startWorker(['--processes', '1', '--threads', '2']);
      const [taken] = await untilStatus([victim], TaskResultStatus.RUNNING);
      const pid = pidOf(taken.workerIds[0]);
      const killedAt = Date.now();
      process.kill(pid, 'SIGKILL');

      const [failed] = await untilStatus([victim], TaskResultStatus.FAILED, 10_000);
      const recoveredInMs = Date.now() - killedAt;
      expect(failed.errors.map((e) => e.className)).toEqual(['WorkerCrashed']);
      expect(failed.errors[0].traceback).toContain('signal SIGKILL');
      expect(failed.errors[0].traceback).toContain(String(pid));
      // At once, not after the lease (1 h): well within one maintenance interval, with slack for load.
      expect(recoveredInMs).toBeLessThan(2 * STAGE_MAINTENANCE_INTERVAL_MS);

      await waitFor(() => startedChildren(cli.output()).length === 2, { what: 'a new child' });
      const later = taskRecord(alias, 'sample.echo', ['after the crash']);
      await backend.tasks.enqueueMany([later]);
      const [done] = await untilStatus([later], TaskResultStatus.SUCCESSFUL);
      expect(pidOf(done.workerIds[0])).not.toBe(pid);
      expect(startedChildren(cli.output())).toContain(pidOf(done.workerIds[0]));
    });

    it('recycles children after --max-tasks 10 --max-tasks-jitter 5, losing and repeating nothing', async () => {
      const tasks = Array.from({ length: 60 }, () => taskRecord(alias, 'sample.cpu', [0]));
      await backend.tasks.enqueueMany(tasks);
      const cli = startWorker([
        '--processes',
        '2',
        '--threads',
        '2',
        '--max-tasks',
        '10',
        '--max-tasks-jitter',
        '5',
        '--exit-empty',
      ]);
      const { code } = await cli.exited;
      expect(code).toBe(0);

      const done = await results(tasks);
      expect(done.filter((r) => r.status !== TaskResultStatus.SUCCESSFUL)).toEqual([]);
      expect(done.every((r) => r.workerIds.length === 1)).toBe(true);
      const pids = new Set(done.map((r) => pidOf(r.workerIds[0])));
      // At most 15 tasks per child: 60 tasks need at least 4 children.
      expect(pids.size).toBeGreaterThanOrEqual(4);
      for (const pid of pids) {
        const count = done.filter((r) => pidOf(r.workerIds[0]) === pid).length;
        expect(count).toBeLessThanOrEqual(15);
      }
      for (const record of done) {
        expect((record.returnValue as { pid: number }).pid).toBe(pidOf(record.workerIds[0]));
      }
      expect(cli.output()).toMatch(/exited \(exit code 0\): recycled/);
    });

    it('runs two CPU-bound tasks in two processes at the same time', async () => {
      const cli = startWorker(['--processes', '2', '--threads', '1']);
      // Both children idle in acquire first, so each takes one of the two tasks.
      await waitFor(() => readyChildren(cli.output()).length === 2, {
        timeoutMs: 20_000,
        what: 'two ready children',
      });
      const tasks = [
        taskRecord(alias, 'sample.cpu', [1500]),
        taskRecord(alias, 'sample.cpu', [1500]),
      ];
      await backend.tasks.enqueueMany(tasks);
      const [a, b] = (await untilStatus(tasks, TaskResultStatus.SUCCESSFUL)).map(
        (r) => r.returnValue as { pid: number; startedAtMs: number; finishedAtMs: number },
      );
      expect(a.pid).not.toBe(b.pid);
      expect(a.startedAtMs).toBeLessThan(b.finishedAtMs);
      expect(b.startedAtMs).toBeLessThan(a.finishedAtMs);
    });

    it('enqueues and reads results from the command line, and exits 2 on usage errors', async () => {
      const run = async (args: string[]): Promise<{ code: number | null; out: string }> => {
        const cli = startCli(args, { THREADMILL_LOG_LEVEL: 'error' });
        const { code } = await cli.exited;
        return { code, out: cli.output() };
      };
      const [enqueued, ...usage] = await Promise.all([
        run(['enqueue', 'sample.echo', '--args', '[1,"a"]', '--count', '3', '--alias', alias]),
        run(['worker', '--alias', alias, '--queues', 'default', 'nope']),
        run(['worker', '--alias', alias, '--processes', 'two']),
        run(['worker', '--alias', 'no-such-alias']),
        run(['enqueue', 'sample.echo', '--alias', alias, '--args', '{bad']),
        run(['enqueue', 'sample.echo', '--alias', alias, '--run-after', 'tomorrow']),
        run(['enqueue', 'sample.echo', '--alias', alias, '--priority', '101']),
        run(['enqueue', 'sample.echo', '--alias', alias, '--queue', 'no.such.queue']),
      ]);
      expect(enqueued.code).toBe(0);
      const ids = enqueued.out.trim().split('\n');
      expect(ids).toHaveLength(3);
      for (const id of ids) expect((await backend.tasks.getResult(id)).args).toEqual([1, 'a']);

      expect(usage.map((u) => u.code)).toEqual(usage.map(() => 2));
      const named = [
        '"nope"',
        "'two'",
        '"no-such-alias"',
        "'{bad'",
        "'tomorrow'",
        "'101'",
        '"no.such.queue"',
      ];
      usage.forEach((u, i) => expect(u.out).toContain(named[i]));

      const [found, missing] = await Promise.all([
        run(['result', ids[0], '--alias', alias]),
        run(['result', randomUUID(), '--alias', alias]),
      ]);
      expect(found.code).toBe(0);
      expect(JSON.parse(found.out)).toMatchObject({ id: ids[0], status: 'READY', args: [1, 'a'] });
      expect(missing.code).toBe(1);
    });
  },
);
