import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import type { CancelOutcome } from '../../lib/core/ports/control-store.port';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { holderAnswer } from '../../lib/task/holder-answer';
import { waitFor } from '../helpers/wait-for';
import { chaosScenario, report, settled, type ChaosStage } from './chaos-harness';

// Cancels racing the start of prefetched tasks on real pools: whatever
// `cancel()` answers, a task never starts after the answer (one whose slot
// freed before its child heard of the cancel may start before it, and is
// then stopped by its signal). Tasks stamp their start on a journal with
// this machine's clock, the one the test reads when the answer comes.

const STAMP_TASK = 'chaos.stamp';

/** A READY record of the stamping task (it waits `ms`, or until its signal aborts). */
function stampRecord(stage: ChaosStage, ms: number): TaskRecord {
  const record: TaskRecord = {
    id: crypto.randomUUID(),
    task: { name: STAMP_TASK, queue: 'default', priority: 0, runAfter: null, backend: stage.alias },
    status: TaskResultStatus.READY,
    enqueuedAt: new Date(),
    startedAt: null,
    finishedAt: null,
    lastAttemptedAt: null,
    args: [stage.journal, ms],
    errors: [],
    workerIds: [],
  };
  return record;
}

/** When each task started (epoch ms), by id; a task started twice keeps every start. */
function startsOf(journal: string): Map<string, number[]> {
  const starts = new Map<string, number[]>();
  if (!existsSync(journal)) return starts;
  for (const line of readFileSync(journal, 'utf8').split('\n')) {
    const [id, at] = line.split(' ');
    if (!id) continue;
    starts.set(id, [...(starts.get(id) ?? []), Number(at)]);
  }
  return starts;
}

interface Answered {
  id: string;
  outcome: CancelOutcome;
  /** When cancel() answered (epoch ms, read as the answer came). */
  at: number;
}

/** The answers the journal contradicts: a task that started after its cancel answered. */
function startedAfterAnswer(answers: readonly Answered[], journal: string): string[] {
  const starts = startsOf(journal);
  return answers
    .filter(({ id, at }) => (starts.get(id) ?? []).some((start) => start > at))
    .map(
      ({ id, outcome, at }) => `${id} ${outcome} at ${at}: started ${starts.get(id)?.join(',')}`,
    );
}

/** How many of `answers` never started at all. */
function neverStarted(answers: readonly Answered[], journal: string): number {
  const starts = startsOf(journal);
  return answers.filter(({ id }) => !starts.has(id)).length;
}

async function cancelNow(stage: ChaosStage, id: string): Promise<Answered> {
  const { outcome } = await holderAnswer(stage.backend, id);
  return { id, outcome, at: Date.now() };
}

describe('chaos: cancels racing prefetched starts', () => {
  jest.setTimeout(60_000);
  const scenario = chaosScenario();

  it('cancel a task a child has prefetched, while its slot is busy: it never starts after cancel() answered, and ends CANCELLED', async () => {
    const stage = scenario.stage('prefetched-cancel');
    const pool = scenario.startPool(
      ['--alias', stage.alias, '--processes', '1', '--threads', '1', '--prefetch', '1'],
      stage.env,
    );
    const rounds = 8;
    const answers: Answered[] = [];
    const busyMs = 400;
    for (let round = 0; round < rounds; round++) {
      const busy = stampRecord(stage, busyMs);
      const prefetched = stampRecord(stage, 2_000);
      await stage.backend.tasks.enqueueMany([busy, prefetched]);
      await waitFor(
        async () =>
          startsOf(stage.journal).has(busy.id) &&
          (await stage.backend.tasks.getResult(prefetched.id)).status === TaskResultStatus.RUNNING,
        { timeoutMs: 15_000, intervalMs: 5, what: 'one task running and one prefetched' },
      );
      // The slot frees within 0 to 200 ms of the cancel, before the child's next read or after.
      const startedAt = startsOf(stage.journal).get(busy.id)![0];
      const cancelAt = startedAt + busyMs - (round * 200) / (rounds - 1);
      await delay(Math.max(0, cancelAt - Date.now()));
      answers.push(await cancelNow(stage, prefetched.id));
      await waitFor(
        async () => {
          const statuses = await Promise.all(
            [busy.id, prefetched.id].map(
              async (id) => (await stage.backend.tasks.getResult(id)).status,
            ),
          );
          return statuses.every(
            (s) => s !== TaskResultStatus.RUNNING && s !== TaskResultStatus.READY,
          );
        },
        { timeoutMs: 10_000, intervalMs: 10, what: 'the round to settle' },
      );
      expect((await stage.backend.tasks.getResult(prefetched.id)).status).toBe(
        TaskResultStatus.CANCELLED,
      );
    }
    const outcomes = answers.map((a) => a.outcome);
    report(
      `[chaos] prefetched cancel, ${rounds} rounds: ${outcomes.filter((o) => o === 'cancelled').length} cancelled, ` +
        `${outcomes.filter((o) => o === 'requested').length} requested; ` +
        `${neverStarted(answers, stage.journal)} never started, the others before the answer`,
    );
    expect(startedAfterAnswer(answers, stage.journal)).toEqual([]);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });

  it('2 pools × 4 slots, prefetch 1, 300 tasks, cancels at random: no task starts after its cancel answered', async () => {
    const stage = scenario.stage('cancel-race');
    const args = ['--alias', stage.alias, '--processes', '1', '--threads', '4', '--prefetch', '1'];
    const pools = [scenario.startPool(args, stage.env), scenario.startPool(args, stage.env)];
    const records = Array.from({ length: 300 }, (_, i) =>
      stampRecord(stage, 100 + ((i * 37) % 200)),
    );
    await stage.backend.tasks.enqueueMany(records);
    // Eight callers cancel leased tasks (prefetched or running) picked at random, 100 in all.
    const answers: Answered[] = [];
    const asked = new Set<string>();
    const until = Date.now() + 20_000;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (asked.size < 100 && Date.now() < until) {
          const leased = (await stage.backend.reads.peek('default', 'running', 50)).filter(
            (r) => !asked.has(r.id),
          );
          if (leased.length === 0) {
            if ((await stage.backend.reads.telemetry(1000)).queues.default.counts.ready === 0)
              return;
            await delay(5);
            continue;
          }
          const { id } = leased[Math.floor(Math.random() * leased.length)];
          asked.add(id);
          answers.push(await cancelNow(stage, id));
        }
      }),
    );
    expect(await settled(stage.backend, 30_000)).toBe(true);
    const count = (outcome: CancelOutcome) => answers.filter((a) => a.outcome === outcome).length;
    report(
      `[chaos] cancel race, 2 pools × 4 slots, prefetch 1: ${answers.length} cancels, ` +
        `${count('cancelled')} cancelled, ${count('requested')} requested, ` +
        `${count('already-final')} already final; ${neverStarted(answers, stage.journal)} never started`,
    );
    expect(startedAfterAnswer(answers, stage.journal)).toEqual([]);
    const starts = startsOf(stage.journal);
    expect([...starts.values()].filter((s) => s.length > 1)).toEqual([]);
    for (const answer of answers.filter((a) => a.outcome !== 'already-final')) {
      expect((await stage.backend.tasks.getResult(answer.id)).status).toBe(
        TaskResultStatus.CANCELLED,
      );
    }
    for (const pool of pools) pool.process.kill('SIGTERM');
    for (const pool of pools) expect((await pool.exited).code).toBe(0);
  });
});
