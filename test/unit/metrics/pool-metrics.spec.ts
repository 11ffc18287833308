import { Logger } from '@nestjs/common';
import { Registry } from 'prom-client';
import { announceEndedAttempt } from '../../../lib/core/attempt-outcome';
import { EventStream } from '../../../lib/core/event-stream';
import type { TaskRecord } from '../../../lib/core/task-record.interface';
import { failedAttempt } from '../../../lib/lifecycle/retry-policy';
import type { TaskRecordSource } from '../../../lib/core/task-result';
import { TaskResultStatus } from '../../../lib/core/task-result-status.enum';
import { PoolMetrics } from '../../../lib/metrics/pool-metrics';
import {
  loadPromClient,
  type MetricsSnapshot,
  type PromClient,
} from '../../../lib/metrics/prom-client.loader';
import { TaskMetrics } from '../../../lib/metrics/task-metrics';
import type { MemoryBackend } from '../../../lib/backends/memory/memory.backend';
import { memoryBackend, readyTask } from '../../helpers/memory-backend';
import { runningRecord } from '../../helpers/ready-record';

const prom = loadPromClient() as PromClient;

/** One sample's value in an exposition text, by its whole series name (`name{labels}`). */
function value(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

const source = (record: TaskRecord): TaskRecordSource => ({
  getResult: () => Promise.resolve(record),
});

/** A child's snapshot as the main process receives it: serialized by the IPC channel. */
const sent = async (metrics: TaskMetrics): Promise<MetricsSnapshot> =>
  JSON.parse(JSON.stringify(await metrics.snapshot())) as MetricsSnapshot;

/** A child's metrics fed through its event stream, as a worker child records them. */
function child(): { metrics: TaskMetrics; events: EventStream } {
  const events = new EventStream(new Logger('test'));
  const metrics = new TaskMetrics(prom);
  metrics.listen(events);
  return { metrics, events };
}

/** Runs one attempt of `name` through `events` as TaskRunner announces it: started, then ended with `status`. */
function attempt(
  events: EventStream,
  name: string,
  status: TaskResultStatus,
  fields: { retries?: number; attempts?: number } = {},
): void {
  const running = runningRecord('memory', { name, queue: 'default' });
  const record: TaskRecord = {
    ...running,
    task: { ...running.task, retries: fields.retries },
    workerIds: Array.from({ length: fields.attempts ?? 1 }, (_, i) => `host:1-${i}`),
  };
  events.emit('taskStarted', { record, source: source(record) });
  const ended =
    status === TaskResultStatus.FAILED
      ? failedAttempt(record, new Error('boom'))
      : { ...record, status, finishedAt: new Date() };
  announceEndedAttempt(events, ended, source(ended), 0);
}

const FINISHED = 'threadmill_tasks_finished_total';
const ok = `${FINISHED}{task="a",queue="default",status="SUCCESSFUL"}`;
const failed = `${FINISHED}{task="a",queue="default",status="FAILED"}`;
const cancelled = `${FINISHED}{task="a",queue="default",status="CANCELLED"}`;
const retries = 'threadmill_task_retries_total{task="a",queue="default"}';
const runs = 'threadmill_task_run_seconds_count{task="a",queue="default"}';

describe('PoolMetrics (the children summed in the main process)', () => {
  const backends: MemoryBackend[] = [];
  const alive = 2;
  const pool = (poolId: string, backend = backends[0]) =>
    new PoolMetrics(prom, {
      backend,
      poolId,
      childrenAlive: () => alive,
      logger: new Logger('test'),
    });

  beforeEach(() => {
    backends.unshift(memoryBackend({}, { queues: ['default', 'emails'] }));
  });
  afterEach(() => Promise.all(backends.splice(0).map((backend) => backend.close())));

  it('maps each ended attempt to its status, or to a retry while attempts are left', async () => {
    const metrics = pool('p-map');
    const { metrics: recorder, events } = child();
    attempt(events, 'a', TaskResultStatus.SUCCESSFUL);
    attempt(events, 'a', TaskResultStatus.CANCELLED, { retries: 2 });
    attempt(events, 'a', TaskResultStatus.FAILED, { retries: 1, attempts: 1 });
    attempt(events, 'a', TaskResultStatus.FAILED, { retries: 1, attempts: 2 });
    recorder.storeFailed();
    metrics.reported(1, await sent(recorder));
    const { body } = await metrics.render();
    expect([value(body, ok), value(body, cancelled), value(body, failed)]).toEqual([1, 1, 1]);
    expect(value(body, retries)).toBe(1);
    expect(value(body, runs)).toBe(4);
    expect(value(body, 'threadmill_task_wait_seconds_count{task="a",queue="default"}')).toBe(4);
    expect(value(body, 'threadmill_store_errors_total')).toBe(1);
    expect(value(body, 'threadmill_children_alive')).toBe(2);
  });

  it('sums the children, replaces a child snapshot by its next, and keeps what an exited child counted', async () => {
    const metrics = pool('p-sum');
    const first = child();
    const second = child();
    attempt(first.events, 'a', TaskResultStatus.SUCCESSFUL);
    metrics.reported(1, await sent(first.metrics));
    attempt(first.events, 'a', TaskResultStatus.SUCCESSFUL);
    // Cumulative: the second report of child 1 replaces its first, never adds to it.
    metrics.reported(1, await sent(first.metrics));
    attempt(second.events, 'a', TaskResultStatus.SUCCESSFUL);
    metrics.reported(2, await sent(second.metrics));
    expect(value((await metrics.render()).body, ok)).toBe(3);

    // Child 1 exits (recycled): its count stays, folded into the retired total once.
    metrics.exited(1);
    expect(value((await metrics.render()).body, ok)).toBe(3);
    expect(value((await metrics.render()).body, ok)).toBe(3);
    // Its replacement starts from zero; child 2 goes on counting.
    const third = child();
    attempt(third.events, 'a', TaskResultStatus.SUCCESSFUL);
    metrics.reported(3, await sent(third.metrics));
    attempt(second.events, 'a', TaskResultStatus.FAILED);
    metrics.reported(2, await sent(second.metrics));
    metrics.exited(2);
    metrics.exited(2);
    const body = (await metrics.render()).body;
    expect(value(body, ok)).toBe(4);
    expect(value(body, failed)).toBe(1);
    expect(value(body, runs)).toBe(5);
    expect(
      value(body, 'threadmill_task_run_seconds_bucket{le="+Inf",task="a",queue="default"}'),
    ).toBe(5);
  });

  it('loses what a child counted after its last report when it dies without one', async () => {
    const metrics = pool('p-crash');
    const { metrics: recorder, events } = child();
    attempt(events, 'a', TaskResultStatus.SUCCESSFUL);
    metrics.reported(7, await sent(recorder));
    attempt(events, 'a', TaskResultStatus.SUCCESSFUL);
    metrics.exited(7);
    expect(value((await metrics.render()).body, ok)).toBe(1);
  });

  it('shows the store gauges on the role holder only, from one read of the store', async () => {
    const [backend] = backends;
    await backend.tasks.enqueueMany([
      readyTask('waiting-1', { queue: 'emails' }),
      readyTask('waiting-2', { queue: 'emails' }),
    ]);
    const holder = pool('p-holder');
    const other = pool('p-other');
    const held = (await holder.render()).body;
    const ready = 'threadmill_queue_tasks{backend="memory",queue="emails",state="ready"}';
    expect(value(held, ready)).toBe(2);
    expect(
      value(held, 'threadmill_queue_tasks{backend="memory",queue="default",state="ready"}'),
    ).toBe(0);
    // readyTask enqueued them at the epoch: they have waited ever since.
    const oldest = value(
      held,
      'threadmill_queue_oldest_waiting_seconds{backend="memory",queue="emails"}',
    );
    expect(oldest).toBeGreaterThan(1_000_000);
    const notHeld = (await other.render()).body;
    expect(notHeld).not.toContain('threadmill_queue_tasks{');
    expect(value(notHeld, 'threadmill_children_alive')).toBe(2);
    // Read at most once per scrape interval: a task enqueued since shows at the next interval.
    await backend.tasks.enqueue(readyTask('waiting-3', { queue: 'emails' }));
    expect(value((await holder.render()).body, ready)).toBe(2);
  });

  it('renders what prom-client aggregates, in its content type', async () => {
    const page = await pool('p-type').render();
    expect(page.contentType).toBe(new Registry().contentType);
    expect(page.body).toContain('# TYPE threadmill_children_alive gauge');
  });
});
