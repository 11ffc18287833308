import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { QueueService, ScheduleService, TaskResultStatus, TaskService } from '../../lib';
import { EventStream, type DashboardActionEvent } from '../../lib/core';
import { GreetingTasks } from '../fixtures/greeting.tasks';
import {
  startDashboardApp,
  type DashboardApp,
  type DashboardStack,
} from '../helpers/dashboard-app';
import { dashboardClient, openEventStream, type Answer } from '../helpers/dashboard-client';
import { waitFor } from '../helpers/wait-for';

// The dashboard's API and page over real HTTP, on a real Nest app: Express on
// Redis and Fastify on SQLite, each store a real one.

const REFRESH_MS = 300;
const ADMIN = { 'x-test-role': 'admin' };

describe.each<DashboardStack>(['express+redis', 'fastify+sqlite'])(
  'dashboard over HTTP (%s)',
  (stack) => {
    jest.setTimeout(20_000);
    let dashboard: DashboardApp;
    let assetsDir: string;
    let call: ReturnType<typeof dashboardClient>;
    let tasks: TaskService;
    const actions: DashboardActionEvent[] = [];

    beforeAll(async () => {
      assetsDir = mkdtempSync(join(tmpdir(), 'threadmill-dashboard-assets-'));
      writeFileSync(
        join(assetsDir, 'index.html'),
        '<!doctype html><html><head><title>Threadmill</title><script type="module" src="assets/app.js"></script></head><body></body></html>',
      );
      writeFileSync(join(assetsDir, 'app.js'), 'console.log("threadmill");\n');
      dashboard = await startDashboardApp(
        stack,
        {
          path: '/threadmill',
          refreshMs: REFRESH_MS,
          authorize: (request) =>
            (request as { headers: Record<string, string> }).headers['x-test-role'] === 'admin',
          identify: () => 'ada',
          redact: { 'GreetingTasks.greet': ['args'], 'GreetingTasks.failSync': ['errors'] },
        },
        assetsDir,
      );
      call = dashboardClient(`${dashboard.origin}/threadmill`, ADMIN);
      tasks = dashboard.app.get(TaskService);
      dashboard.app.get(EventStream).on('dashboardAction', (event) => actions.push(event));
    });

    afterAll(async () => {
      await dashboard?.close();
      rmSync(assetsDir, { recursive: true, force: true });
    });

    const alias = () => `alias=${encodeURIComponent(dashboard.alias)}`;
    const statusOf = async (id: string) => (await dashboard.backend.getResult(id)).status;
    const lastAction = () => actions[actions.length - 1];

    /** A FAILED task (no retries), run as a worker slot would run it. */
    async function failedTask(): Promise<string> {
      const { id } = await tasks.enqueue(GreetingTasks, 'failSync', []);
      await dashboard.work('default');
      expect(await statusOf(id)).toBe(TaskResultStatus.FAILED);
      return id;
    }

    it('tells the page its aliases and whether it may act, and never a store address', async () => {
      const meta = await call('GET', '/api/meta');
      expect(meta.body).toEqual({
        aliases: [{ alias: dashboard.alias, kind: stack.endsWith('redis') ? 'redis' : 'sqlite' }],
        canAct: true,
        refreshMs: REFRESH_MS,
        csrfHeader: 'x-threadmill-dashboard',
      });
      const overview = await call<{ queues: { name: string }[] }>(
        'GET',
        `/api/overview?${alias()}`,
      );
      expect(overview.body.queues.map((q) => q.name)).toEqual(['default', 'loud']);
      const reads = await Promise.all(
        ['meta', `overview?${alias()}`, `schedules?${alias()}`, `pools?${alias()}`].map((route) =>
          call('GET', `/api/${route}`),
        ),
      );
      for (const read of reads) expect(JSON.stringify(read.body)).not.toContain(dashboard.secret);
    });

    it('serves the page with its base at the mount path, and its assets', async () => {
      for (const route of ['', '/queues/default/failed']) {
        const page = await call<string>('GET', route);
        expect(page.status).toBe(200);
        expect(page.type).toContain('text/html');
        expect(page.body).toContain('<head><base href="/threadmill/">');
        expect(page.body).toMatch(/src="assets\/app\.js\?v=[0-9a-f]{12}"/);
        expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      }
      const script = await call<string>('GET', '/assets/app.js?v=1');
      expect(script.status).toBe(200);
      expect(script.type).toBe('text/javascript; charset=utf-8');
      expect(script.headers.get('cache-control')).toContain('immutable');
      expect(script.body).toContain('threadmill');
      expect((await call('GET', '/assets/missing.js')).status).toBe(404);
      expect((await call('GET', '/assets/..%2Findex.html')).status).toBe(404);
      const unknown = await call('GET', '/api/nothing-here');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ error: { name: 'NotFoundException' } });
    });

    it('pages through a segment with a cursor, filters by task name and finds a task by id', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await tasks.enqueue(GreetingTasks, 'shout', [`n${i}`, 1])).id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `${alias()}&queue=loud&segment=ready&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page: Answer<{ tasks: { id: string }[]; next: string | null }> = await call<{
          tasks: { id: string; name: string }[];
          next: string | null;
        }>('GET', `/api/tasks?${query}`);
        expect(page.body.tasks.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.tasks.map((task) => task.id));
        cursor = page.body.next;
      } while (cursor !== null);
      expect([...seen].sort()).toEqual([...ids].sort());
      const named = await call<{ tasks: unknown[] }>(
        'GET',
        `/api/tasks?${alias()}&queue=loud&task=greetings.shout&limit=500`,
      );
      expect(named.body.tasks).toHaveLength(5);
      const byId = await call<{ tasks: { id: string; queue: string }[] }>(
        'GET',
        `/api/tasks?${alias()}&id=${ids[3]}`,
      );
      expect(byId.body.tasks).toEqual([
        expect.objectContaining({ id: ids[3], queue: 'loud', status: 'READY' }),
      ]);
      expect(
        (await call<{ tasks: unknown[] }>('GET', `/api/tasks?${alias()}&id=no-such-task`)).body
          .tasks,
      ).toEqual([]);
      expect((await call('GET', `/api/tasks?${alias()}&segment=nowhere`)).status).toBe(400);
      await call('POST', `/api/tasks/cancel?${alias()}`, { body: { queue: 'loud' } });
    });

    it('hides the parts of a task its name is redacted for, and shows the rest', async () => {
      const failed = await failedTask();
      // Enqueued after the worker ran, so it waits: its args are all there is to hide.
      const greet = await tasks.enqueue(GreetingTasks, 'greet', ['secret-name']);
      const greetDetail = await call<Record<string, unknown>>(
        'GET',
        `/api/tasks/${greet.id}?${alias()}`,
      );
      expect(greetDetail.body).toMatchObject({
        id: greet.id,
        args: { redacted: true },
        errors: [],
      });
      expect(JSON.stringify(greetDetail.body)).not.toContain('secret-name');
      const failedDetail = await call<Record<string, unknown>>(
        'GET',
        `/api/tasks/${failed}?${alias()}`,
      );
      expect(failedDetail.body).toMatchObject({
        status: 'FAILED',
        args: [],
        errors: { redacted: true },
        lastError: { redacted: true },
        timeline: [{ attempt: 1, workerId: 'e2e:1-0' }],
      });
      expect(JSON.stringify(failedDetail.body)).not.toContain('sync failure');
      const shout = await tasks.enqueue(GreetingTasks, 'shout', ['Bo', 2]);
      expect((await call('GET', `/api/tasks/${shout.id}?${alias()}`)).body).toMatchObject({
        args: ['Bo', 2],
      });
      const missing = await call('GET', `/api/tasks/no-such-task?${alias()}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ error: { name: 'TaskResultDoesNotExist' } });
      await call('POST', `/api/tasks/${shout.id}/cancel?${alias()}`, { body: {} });
      await call('POST', `/api/tasks/${greet.id}/cancel?${alias()}`, { body: {} });
    });

    it('cancels a waiting task, retries a failed one and removes a final one, logging each', async () => {
      const waiting = await tasks.enqueue(GreetingTasks, 'greet', ['Cy']);
      const cancel = await call('POST', `/api/tasks/${waiting.id}/cancel?${alias()}`, { body: {} });
      expect(cancel.body).toEqual({ outcome: 'cancelled' });
      expect(await statusOf(waiting.id)).toBe(TaskResultStatus.CANCELLED);
      expect(lastAction()).toEqual({
        who: 'ada',
        action: 'cancel',
        backend: dashboard.alias,
        target: `task ${waiting.id}`,
        count: 1,
      });
      const again = await call('POST', `/api/tasks/${waiting.id}/cancel?${alias()}`, { body: {} });
      expect(again.status).toBe(409);

      const failed = await failedTask();
      expect(
        (await call('POST', `/api/tasks/${failed}/retry?${alias()}`, { body: {} })).body,
      ).toEqual({ outcome: 'retried' });
      expect(await statusOf(failed)).toBe(TaskResultStatus.READY);
      expect(lastAction()).toMatchObject({ action: 'retry', count: 1 });
      expect(
        (await call('POST', `/api/tasks/${failed}/remove?${alias()}`, { body: {} })).status,
      ).toBe(409);

      expect(
        (await call('POST', `/api/tasks/${waiting.id}/remove?${alias()}`, { body: {} })).body,
      ).toEqual({ outcome: 'removed' });
      await expect(dashboard.backend.getResult(waiting.id)).rejects.toThrow(/No task result/);
      await call('POST', `/api/tasks/${failed}/cancel?${alias()}`, { body: {} });
    });

    it('counts a bulk action for its confirmation, then does it', async () => {
      const failed = [await failedTask(), await failedTask()];
      const filter = { queue: 'default', status: 'failed' };
      const dry = await call<{ count: number }>('POST', `/api/tasks/retry?${alias()}`, {
        body: { ...filter, dryRun: true },
      });
      const counts = (await dashboard.backend.telemetry(60_000)).queues.default.counts;
      expect(dry.body.count).toBe(counts.failed);
      expect(dry.body.count).toBeGreaterThanOrEqual(2);
      const before = actions.length;
      const done = await call<{ count: number }>('POST', `/api/tasks/retry?${alias()}`, {
        body: filter,
      });
      expect(done.body.count).toBe(dry.body.count);
      for (const id of failed) expect(await statusOf(id)).toBe(TaskResultStatus.READY);
      expect(actions.slice(before)).toEqual([
        expect.objectContaining({
          action: 'retry',
          target: 'failed tasks of queue "default"',
          count: dry.body.count,
        }),
      ]);
      const byIds = { ids: [...failed, 'no-such-task'] };
      expect(
        (await call('POST', `/api/tasks/cancel?${alias()}`, { body: { ...byIds, dryRun: true } }))
          .body,
      ).toEqual({ count: 2 });
      expect((await call('POST', `/api/tasks/cancel?${alias()}`, { body: byIds })).body).toEqual({
        count: 2,
      });
      expect(
        (
          await call('POST', `/api/tasks/remove?${alias()}`, {
            body: { queue: 'default', status: 'cancelled', dryRun: true },
          })
        ).body,
      ).toMatchObject({ count: expect.any(Number) });
      expect(
        (
          await call('POST', `/api/tasks/retry?${alias()}`, {
            body: { queue: 'default', status: 'successful' },
          })
        ).status,
      ).toBe(400);
      expect(
        (await call('POST', `/api/tasks/retry?${alias()}`, { body: { queue: 'nowhere' } })).status,
      ).toBe(404);
    });

    it('pauses, resumes and limits a queue, and runs a schedule now', async () => {
      const queues = dashboard.app.get(QueueService);
      const target = { backend: dashboard.alias };
      expect((await call('POST', `/api/queues/loud/pause?${alias()}`, { body: {} })).body).toEqual({
        paused: true,
      });
      expect((await queues.state('loud', target)).paused).toBe(true);
      expect(lastAction()).toMatchObject({ action: 'pause', target: 'queue "loud"' });
      await call('POST', `/api/queues/loud/resume?${alias()}`, { body: {} });
      expect((await queues.state('loud', target)).paused).toBe(false);
      expect(
        (await call('POST', `/api/queues/nowhere/pause?${alias()}`, { body: {} })).status,
      ).toBe(404);

      const limits = { concurrency: 3, rateLimit: { max: 10, perMs: 1000 } };
      expect(
        (await call('PUT', `/api/queues/loud/limits?${alias()}`, { body: limits })).body,
      ).toEqual({ limits });
      expect((await queues.state('loud', target)).limits).toEqual(limits);
      expect(
        (await call('PUT', `/api/queues/loud/limits?${alias()}`, { body: { concurrency: 0 } }))
          .status,
      ).toBe(400);
      await call('PUT', `/api/queues/loud/limits?${alias()}`, { body: {} });
      expect((await queues.state('loud', target)).limits).toBeNull();

      await dashboard.app.get(ScheduleService).add('dashboard-nightly', {
        task: 'GreetingTasks.greet',
        cron: '0 3 * * *',
        args: ['night'],
        backend: dashboard.alias,
      });
      const schedules = await call<{ id: string; args: unknown }[]>(
        'GET',
        `/api/schedules?${alias()}`,
      );
      expect(schedules.body).toEqual([
        expect.objectContaining({ id: 'dashboard-nightly', args: { redacted: true } }),
      ]);
      const run = await call<{ taskId: string }>(
        'POST',
        `/api/schedules/dashboard-nightly/run?${alias()}`,
        { body: {} },
      );
      const record = await dashboard.backend.getResult(run.body.taskId);
      expect(record.task.schedule?.id).toBe('dashboard-nightly');
      expect(lastAction()).toMatchObject({ action: 'run', count: 1 });
      expect(
        (await call('POST', `/api/schedules/nothing/run?${alias()}`, { body: {} })).status,
      ).toBe(404);
    });

    it('shares one overview read per refresh among every live stream, and reads nothing once they close', async () => {
      const url = `${dashboard.origin}/threadmill/api/stream?${alias()}`;
      const before = dashboard.telemetryReads();
      const first = await openEventStream(url, ADMIN);
      const second = await openEventStream(url, ADMIN);
      await waitFor(() => first.events.length >= 4 && second.events.length >= 4, {
        timeoutMs: 10_000,
        what: 'four overview events on each stream',
      });
      const reads = dashboard.telemetryReads() - before;
      await Promise.all([first.close(), second.close()]);
      expect(first.events[0]).toMatchObject({
        event: 'overview',
        data: { alias: dashboard.alias, queues: [{ name: 'default' }, { name: 'loud' }] },
      });
      const most = Math.max(first.events.length, second.events.length);
      expect(reads).toBeLessThanOrEqual(most + 1);
      expect(reads).toBeLessThan(first.events.length + second.events.length);
      // Nothing to await for an absence: wait out a few refreshes after the server saw both leave.
      await new Promise((resolve) => setTimeout(resolve, 2 * REFRESH_MS));
      const after = dashboard.telemetryReads();
      await new Promise((resolve) => setTimeout(resolve, 3 * REFRESH_MS));
      expect(dashboard.telemetryReads()).toBe(after);
    });

    it("reads the last hour's activity and the worker pools", async () => {
      const activity = await call<{
        bucketMs: number;
        queues: Record<string, { enqueued: number[] }>;
      }>('GET', `/api/activity?${alias()}`);
      expect(activity.status).toBe(200);
      expect(activity.body.bucketMs).toBe(60_000);
      expect(activity.body.queues.default.enqueued.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      await dashboard.backend.beatPool('dashboard-pool', 10_000, {
        host: 'e2e',
        pid: 42,
        children: 2,
        slots: 4,
        queues: ['default'],
        startedAt: new Date(),
      });
      const pools = await call<{ id: string; alive: boolean }[]>('GET', `/api/pools?${alias()}`);
      expect(pools.body).toEqual([
        expect.objectContaining({ id: 'dashboard-pool', alive: true, pid: 42 }),
      ]);
      await dashboard.backend.retirePool('dashboard-pool');
    });
  },
);
