import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { cliStage, STAGE_STORES } from '../helpers/cli-stage';
import { freePort } from '../helpers/free-port';
import { readyRecord } from '../helpers/ready-record';
import { waitFor } from '../helpers/wait-for';

// Real worker pools (`threadmill worker --health-port`) on the run's Redis or Postgres,
// scraped over real HTTP as Prometheus would.

/** One sample of an exposition text: its value, when a line of `name` has every label given. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = new Map(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found.get(key) === value)) {
      return Number(match[3]);
    }
  }
  return null;
}

/** Whether the text has any sample of `name` (its HELP and TYPE lines alone do not count). */
const hasSamples = (text: string, name: string): boolean =>
  text.split('\n').some((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));

async function scrape(port: number): Promise<{ status: number; type: string; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    body: await response.text(),
  };
}

describe.each(STAGE_STORES)('metrics of a worker pool (e2e: real pools, HTTP and %s)', (store) => {
  jest.setTimeout(90_000);
  // The pools consume `default` only: the tasks on `emails` stay READY (or deferred) for the store gauges.
  const stage = cliStage(['default', 'emails'], store);

  const record = (
    name: string,
    args: unknown[],
    queue = 'default',
    retries?: number,
    fields: Partial<Parameters<typeof readyRecord>[1]> = {},
  ): TaskRecord => {
    const base = readyRecord(stage.alias, { name, args, queue, ...fields });
    if (retries === undefined) return base;
    return {
      ...base,
      task: { ...base.task, retries, backoff: { type: 'fixed', delayMs: 0, jitter: false } },
    };
  };

  function startPool(port: number): ReturnType<typeof stage.start> {
    return stage.start([
      ...['worker', '--alias', stage.alias, '--queues', 'default'],
      ...['--processes', '2', '--threads', '2', '--max-tasks', '3', '--health-port', String(port)],
    ]);
  }

  it('counts drained tasks exactly across recycled children, and only one pool exposes the store gauges', async () => {
    const echoes = Array.from({ length: 6 }, (_, i) => record('sample.echo', [i]));
    const failures = Array.from({ length: 2 }, () => record('sample.fail', ['no'], 'default', 0));
    // One retry each, then FAILED: 2 retries and 2 more failures.
    const retried = Array.from({ length: 2 }, () => record('sample.fail', ['no'], 'default', 1));
    const ran = [...echoes, ...failures, ...retried];
    const waitingSince = new Date(Date.now() - 60_000);
    const waiting = [
      record('sample.echo', [], 'emails', undefined, { enqueuedAt: waitingSince }),
      record('sample.echo', [], 'emails'),
      record('sample.echo', [], 'emails', undefined, { runAfter: new Date(Date.now() + 3600_000) }),
    ];
    await stage.backend.tasks.enqueueMany([...ran, ...waiting]);

    const portA = await freePort();
    startPool(portA);
    await waitFor(
      async () => {
        const results = await Promise.all(ran.map((r) => stage.backend.tasks.getResult(r.id)));
        return results.every((r) => r.status !== TaskResultStatus.READY && r.finishedAt !== null);
      },
      { timeoutMs: 60_000, intervalMs: 200, what: 'every task to finish' },
    );
    // Children report every few hundred ms: wait for the last outcome to be in.
    const finished = (body: string, task: string, queue: string, status: string): number | null =>
      sample(body, 'threadmill_tasks_finished_total', { task, queue, status });
    const { status, type, body } = await waitFor(
      async () => {
        const page = await scrape(portA);
        const done =
          finished(page.body, 'sample.echo', 'default', 'SUCCESSFUL') === 6 &&
          finished(page.body, 'sample.fail', 'default', 'FAILED') === 4 &&
          sample(page.body, 'threadmill_children_alive') === 2;
        return done ? page : null;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the final counts on /metrics' },
    );
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    const labels = { task: 'sample.fail', queue: 'default' };
    expect(sample(body, 'threadmill_task_retries_total', labels)).toBe(2);
    expect(sample(body, 'threadmill_task_retries_total', { task: 'sample.echo' })).toBeNull();
    expect(finished(body, 'sample.fail', 'default', 'SUCCESSFUL')).toBeNull();
    // Every attempt ran and waited once: 6 echoes, 6 attempts of sample.fail (4 + 2 retried).
    const echo = { task: 'sample.echo', queue: 'default' };
    expect(sample(body, 'threadmill_task_run_seconds_count', echo)).toBe(6);
    expect(sample(body, 'threadmill_task_wait_seconds_count', echo)).toBe(6);
    expect(sample(body, 'threadmill_task_run_seconds_count', labels)).toBe(6);
    expect(sample(body, 'threadmill_task_wait_seconds_count', labels)).toBe(6);
    expect(sample(body, 'threadmill_task_run_seconds_bucket', { ...echo, le: '+Inf' })).toBe(6);
    expect(sample(body, 'threadmill_store_errors_total')).toBe(0);

    // This pool holds the store gauges role: the store's counts, labelled by backend and queue.
    const idle = { backend: stage.alias, queue: 'emails' };
    expect(sample(body, 'threadmill_queue_tasks', { ...idle, state: 'ready' })).toBe(2);
    expect(sample(body, 'threadmill_queue_tasks', { ...idle, state: 'deferred' })).toBe(1);
    expect(sample(body, 'threadmill_queue_tasks', { ...idle, state: 'running' })).toBe(0);
    const drained = { backend: stage.alias, queue: 'default' };
    expect(sample(body, 'threadmill_queue_tasks', { ...drained, state: 'ready' })).toBe(0);
    expect(sample(body, 'threadmill_queue_oldest_waiting_seconds', idle)).toBeGreaterThanOrEqual(
      60,
    );
    expect(sample(body, 'threadmill_queue_oldest_waiting_seconds', drained)).toBe(0);

    // The liveness JSON still answers on any other path (503 for a moment while a child recycles).
    const live = await waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${portA}/`);
        return response.status === 200
          ? ((await response.json()) as Record<string, unknown>)
          : null;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the liveness endpoint to answer 200' },
    );
    expect(live).toMatchObject({ status: 'up', childrenAlive: 2, childrenExpected: 2 });

    // A second pool on the same store: its own gauges, never the store's while A holds the role.
    const portB = await freePort();
    startPool(portB);
    const second = await waitFor(
      async () => {
        const page = await scrape(portB);
        return sample(page.body, 'threadmill_children_alive') === 2 ? page.body : null;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: 'the second pool to serve /metrics' },
    );
    expect(hasSamples(second, 'threadmill_queue_tasks')).toBe(false);
    expect(hasSamples(second, 'threadmill_queue_oldest_waiting_seconds')).toBe(false);
    expect(hasSamples(second, 'threadmill_tasks_finished_total')).toBe(false);
    // A renews its role at each scrape.
    const again = (await scrape(portA)).body;
    expect(sample(again, 'threadmill_queue_tasks', { ...idle, state: 'ready' })).toBe(2);
    expect(finished(again, 'sample.echo', 'default', 'SUCCESSFUL')).toBe(6);
  });
});
