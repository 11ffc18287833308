import { randomUUID } from 'node:crypto';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { freePort } from '../helpers/free-port';
import { waitFor } from '../helpers/wait-for';
import {
  audit,
  auditLine,
  chaosRecord,
  chaosScenario,
  report,
  settled,
  type ChaosStage,
} from './chaos-harness';

// Tasks that misbehave in ways no try/catch contains, on real pools with the
// default liveness timeout: a task that never yields its event loop, and tasks
// that leave a rejected promise or a throwing timer behind after they return.

/** A READY record of one of the fixture tasks (test/fixtures/worker/fixture.tasks.ts). */
function fixtureRecord(alias: string, name: string): TaskRecord {
  return {
    ...chaosRecord(alias, '', 0),
    id: randomUUID(),
    task: { name, queue: 'default', priority: 0, runAfter: null, backend: alias },
    args: [],
  };
}

async function statuses(stage: ChaosStage, ids: readonly string[]): Promise<TaskResultStatus[]> {
  const records = await Promise.all(ids.map((id) => stage.backend.tasks.getResult(id)));
  return records.map((record) => record.status);
}

async function healthOf(port: number): Promise<{ status: number; reasons: string[] }> {
  const response = await fetch(`http://127.0.0.1:${port}/`);
  return {
    status: response.status,
    reasons: ((await response.json()) as { reasons: string[] }).reasons,
  };
}

describe('chaos: tasks that misbehave beyond a try/catch', () => {
  jest.setTimeout(120_000);
  const scenario = chaosScenario();

  it('replaces a child whose task spins, failing only the tasks that child was running', async () => {
    const stage = scenario.stage('spin');
    const { alias, backend, journal, env } = stage;
    // Neighbours that will still be running when the spin starts.
    const neighbours = Array.from({ length: 3 }, () => chaosRecord(alias, journal, 60_000));
    await backend.tasks.enqueueMany(neighbours);
    const healthPort = await freePort();
    const pool = scenario.startPool(
      ['--alias', alias, '--processes', '1', '--threads', '4', '--health-port', String(healthPort)],
      env,
    );
    const neighbourIds = neighbours.map((r) => r.id);
    await waitFor(
      async () =>
        (await statuses(stage, neighbourIds)).every((s) => s === TaskResultStatus.RUNNING),
      { timeoutMs: 30_000, what: 'the neighbours to run' },
    );
    const spin = fixtureRecord(alias, 'fixture.spin');
    const backlog = Array.from({ length: 20 }, () => chaosRecord(alias, journal, 10));
    await backend.tasks.enqueue(spin);
    const spunAt = Date.now();
    await backend.tasks.enqueueMany(backlog);

    await waitFor(() => /Worker child \d+ has not answered for \d+ ms/.test(pool.output()), {
      timeoutMs: 60_000,
      intervalMs: 50,
      what: 'the pool to find the child wedged',
    });
    const killedAfterMs = Date.now() - spunAt;
    // Down until the replacement is ready (one of its children is missing).
    expect((await healthOf(healthPort)).status).toBe(503);
    expect(await settled(backend, 60_000)).toBe(true);
    const drainedAfterMs = Date.now() - spunAt;
    await waitFor(async () => (await healthOf(healthPort)).status === 200, {
      timeoutMs: 30_000,
      what: 'the pool to report up again',
    });

    const spun = await backend.tasks.getResult(spin.id);
    expect(spun.status).toBe(TaskResultStatus.FAILED);
    expect(spun.errors.at(-1)?.className).toBe('WorkerCrashed');
    expect(spun.errors.at(-1)?.traceback).toContain('without answering');
    const result = await audit(backend, [...neighbourIds, ...backlog.map((r) => r.id)], journal);
    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.duplicates).toEqual([]);
    // The neighbours ran and were cut off with their child; the backlog ran on the replacement.
    expect(result.failed).toEqual({ WorkerCrashed: neighbours.length });
    expect(result.successful).toBe(backlog.length);
    report(
      auditLine(
        'a task spinning in a 1-process x 4-slot pool (default liveness timeout)',
        result,
        `the wedged child was killed ${killedAfterMs} ms after the spin started and its ` +
          `replacement had drained the backlog ${drainedAfterMs} ms after it`,
      ),
    );
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });

  it('stops within the stop grace while a task spins, releasing that task unfailed', async () => {
    const stage = scenario.stage('spin-stop');
    const spin = fixtureRecord(stage.alias, 'fixture.spin');
    await stage.backend.tasks.enqueue(spin);
    const pool = scenario.startPool(
      ['--alias', stage.alias, '--processes', '1', '--threads', '2'],
      stage.env,
    );
    await waitFor(async () => (await statuses(stage, [spin.id]))[0] === TaskResultStatus.RUNNING, {
      timeoutMs: 30_000,
      what: 'the spin to start',
    });
    const signalledAt = Date.now();
    pool.process.kill('SIGTERM');
    const { code } = await pool.exited;
    const stoppedAfterMs = Date.now() - signalledAt;
    expect(code).toBe(0);
    // The stop grace is 10 s; the kill, its release and the exit follow at once.
    expect(stoppedAfterMs).toBeLessThan(15_000);
    const released = await stage.backend.tasks.getResult(spin.id);
    expect(released.status).toBe(TaskResultStatus.READY);
    expect(released.errors).toEqual([]);
    report(
      `[chaos] SIGTERM while a task spins: the pool exited ${stoppedAfterMs} ms after the ` +
        `signal; the spinning task is READY again, not failed`,
    );
  });

  it('keeps a child whose task left a rejection behind, and recycles one left a throwing timer', async () => {
    const stage = scenario.stage('leftovers');
    const { alias, backend, journal, env } = stage;
    const rejection = fixtureRecord(alias, 'fixture.leaveRejection');
    const exception = fixtureRecord(alias, 'fixture.leaveException');
    const neighbours = Array.from({ length: 3 }, () => chaosRecord(alias, journal, 300));
    const backlog = Array.from({ length: 20 }, () => chaosRecord(alias, journal, 10));
    await backend.tasks.enqueueMany([...neighbours, rejection, ...backlog]);
    const pool = scenario.startPool(['--alias', alias, '--processes', '1', '--threads', '4'], env);
    expect(await settled(backend, 60_000)).toBe(true);
    expect(pool.output()).toContain(
      `Task "fixture.leaveRejection" (${rejection.id}) left a promise rejection that nothing handled`,
    );
    expect(pool.output()).not.toMatch(/Worker child \d+ exited/);

    const more = Array.from({ length: 3 }, () => chaosRecord(alias, journal, 300));
    await backend.tasks.enqueueMany([exception, ...more]);
    expect(await settled(backend, 60_000)).toBe(true);
    await waitFor(
      () =>
        pool.liveChildren().length === 1 && /exited \(exit code 0\): recycled/.test(pool.output()),
      {
        timeoutMs: 30_000,
        what: 'the child to be recycled and replaced',
      },
    );
    expect(pool.output()).toContain(
      `Task "fixture.leaveException" (${exception.id}) threw an exception that nothing caught`,
    );
    const all = [rejection, exception].map((r) => r.id);
    expect(await statuses(stage, all)).toEqual([
      TaskResultStatus.SUCCESSFUL,
      TaskResultStatus.SUCCESSFUL,
    ]);
    const ids = [...neighbours, ...backlog, ...more].map((r) => r.id);
    const result = await audit(backend, ids, journal);
    expect(result).toMatchObject({ lost: [], stuck: [], duplicates: [], failed: {} });
    report(
      auditLine(
        'tasks that leave a rejection or a throwing timer behind (1 process x 4 slots)',
        result,
        'the rejection was logged with its task and the child went on; the throwing timer ' +
          'recycled the child after its neighbours finished',
      ),
    );
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });
});
