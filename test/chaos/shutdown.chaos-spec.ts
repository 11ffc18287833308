import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, chaosScenario, readJournal, report } from './chaos-harness';

// SIGTERM in the middle of a burst: the pool must acknowledge every task it
// acquired (none left RUNNING, none run and then lost), leave the rest READY,
// and exit 0; a second pool then finishes the rest, running nothing twice.

const TASKS = 1500;
const TASK_MS = 30;

describe('chaos: SIGTERM during a burst', () => {
  jest.setTimeout(120_000);
  const scenario = chaosScenario();

  it('acknowledges every acquired task, exits 0, and a second pool finishes the rest', async () => {
    const { alias, backend, journal, env } = scenario.stage('sigterm');
    const records = Array.from({ length: TASKS }, () => chaosRecord(alias, journal, TASK_MS));
    const ids = records.map((r) => r.id);
    await backend.tasks.enqueueMany(records);
    const args = ['--alias', alias, '--processes', '2', '--threads', '8'];

    const first = scenario.startPool(args, env);
    // Mid-burst: both children busy and a good part of the work done.
    await waitFor(
      async () => {
        const { counts } = (await backend.reads.telemetry(1000)).queues.default;
        return counts.successful >= TASKS / 5 && counts.running >= 8;
      },
      { timeoutMs: 60_000, intervalMs: 10, what: 'a busy pool' },
    );
    const runningAtSignal = (await backend.reads.telemetry(1000)).queues.default.counts.running;
    first.process.kill('SIGTERM');
    const { code } = await first.exited;
    expect(code).toBe(0);

    // Nothing the first pool acquired is left RUNNING, and whatever it ran was acknowledged.
    const afterStop = await audit(backend, ids, journal);
    const stillReady = afterStop.stuck.filter((s) => s.endsWith(TaskResultStatus.READY));
    const ranByFirst = readJournal(journal);
    report(
      auditLine(
        'SIGTERM during a burst (first pool)',
        // READY ones were never acquired: they wait for the next pool, they are not stuck.
        { ...afterStop, stuck: afterStop.stuck.filter((s) => !stillReady.includes(s)) },
        `${runningAtSignal} running at the signal, ${stillReady.length} left READY, exit ${code}`,
      ),
    );
    expect(afterStop.lost).toEqual([]);
    expect(afterStop.stuck.filter((s) => !s.endsWith(TaskResultStatus.READY))).toEqual([]);
    expect(afterStop.failed).toEqual({});
    expect(afterStop.successful).toBe(ranByFirst.size);
    expect(afterStop.successful + stillReady.length).toBe(TASKS);

    // A second pool drains what was left, and runs none of it twice.
    const second = scenario.startPool([...args, '--exit-empty'], env);
    expect((await second.exited).code).toBe(0);
    const final = await audit(backend, ids, journal);
    report(auditLine('SIGTERM during a burst (after a second pool)', final, 'exit 0'));
    expect(final.lost).toEqual([]);
    expect(final.stuck).toEqual([]);
    expect(final.successful).toBe(TASKS);
    expect(final.duplicates).toEqual([]);
    expect(final.executions).toBe(TASKS);
  });
});
