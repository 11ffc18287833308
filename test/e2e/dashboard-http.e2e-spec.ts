import { GreetingTasks } from '../fixtures/greeting.tasks';
import { ADMIN, REFRESH_MS, useAdminDashboard } from '../helpers/admin-dashboard';
import type { DashboardStack } from '../helpers/dashboard-app';
import { openEventStream, type Answer } from '../helpers/dashboard-client';
import { waitFor } from '../helpers/wait-for';

// The dashboard's reads and page over real HTTP, on a real Nest app: Express
// on Redis and on Postgres, Fastify on SQLite, each store a real one.

describe.each<DashboardStack>(['express+redis', 'fastify+sqlite', 'express+postgres'])(
  'dashboard reads (%s)',
  (stack) => {
    jest.setTimeout(20_000);
    const admin = useAdminDashboard(stack);

    it('tells the page its aliases and whether it may act, and never a store address', async () => {
      const meta = await admin.call('GET', '/api/meta');
      expect(meta.body).toEqual({
        aliases: [{ alias: admin.dashboard.alias, kind: stack.split('+')[1] }],
        canAct: true,
        refreshMs: REFRESH_MS,
        csrfHeader: 'x-threadmill-dashboard',
      });
      const overview = await admin.call<{ queues: { name: string }[] }>(
        'GET',
        `/api/overview?${admin.alias()}`,
      );
      expect(overview.body.queues.map((q) => q.name)).toEqual(['default', 'loud']);
      const reads = await Promise.all(
        [
          'meta',
          `overview?${admin.alias()}`,
          `schedules?${admin.alias()}`,
          `pools?${admin.alias()}`,
        ].map((route) => admin.call('GET', `/api/${route}`)),
      );
      for (const read of reads)
        expect(JSON.stringify(read.body)).not.toContain(admin.dashboard.secret);
    });

    it('serves the page with its base at the mount path, and its assets', async () => {
      for (const route of ['', '/queues/default/failed']) {
        const page = await admin.call<string>('GET', route);
        expect(page.status).toBe(200);
        expect(page.type).toContain('text/html');
        expect(page.body).toContain('<head><base href="/threadmill/">');
        expect(page.body).toMatch(/src="assets\/app\.js\?v=[0-9a-f]{12}"/);
        expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      }
      const script = await admin.call<string>('GET', '/assets/app.js?v=1');
      expect(script.status).toBe(200);
      expect(script.type).toBe('text/javascript; charset=utf-8');
      expect(script.headers.get('cache-control')).toContain('immutable');
      expect(script.body).toContain('threadmill');
      expect((await admin.call('GET', '/assets/missing.js')).status).toBe(404);
      expect((await admin.call('GET', '/assets/..%2Findex.html')).status).toBe(404);
      const unknown = await admin.call('GET', '/api/nothing-here');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ error: { name: 'NotFoundException' } });
    });

    it('pages through a segment with a cursor, filters by task name and finds a task by id', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await admin.tasks.enqueue(GreetingTasks, 'shout', [`n${i}`, 1])).id);
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `${admin.alias()}&queue=loud&segment=ready&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page: Answer<{ tasks: { id: string }[]; next: string | null }> = await admin.call<{
          tasks: { id: string; name: string }[];
          next: string | null;
        }>('GET', `/api/tasks?${query}`);
        expect(page.body.tasks.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.tasks.map((task) => task.id));
        cursor = page.body.next;
      } while (cursor !== null);
      expect([...seen].sort()).toEqual([...ids].sort());
      const named = await admin.call<{ tasks: unknown[] }>(
        'GET',
        `/api/tasks?${admin.alias()}&queue=loud&task=greetings.shout&limit=500`,
      );
      expect(named.body.tasks).toHaveLength(5);
      const byId = await admin.call<{ tasks: { id: string; queue: string }[] }>(
        'GET',
        `/api/tasks?${admin.alias()}&id=${ids[3]}`,
      );
      expect(byId.body.tasks).toEqual([
        expect.objectContaining({ id: ids[3], queue: 'loud', status: 'READY' }),
      ]);
      expect(
        (
          await admin.call<{ tasks: unknown[] }>(
            'GET',
            `/api/tasks?${admin.alias()}&id=no-such-task`,
          )
        ).body.tasks,
      ).toEqual([]);
      expect((await admin.call('GET', `/api/tasks?${admin.alias()}&segment=nowhere`)).status).toBe(
        400,
      );
      expect(
        (await admin.call('GET', `/api/tasks?${admin.alias()}&cursor=not-a-cursor`)).status,
      ).toBe(400);
      await admin.call('POST', `/api/tasks/cancel?${admin.alias()}`, { body: { queue: 'loud' } });
    });

    it('hides the parts of a task its name is redacted for, and shows the rest', async () => {
      const failed = await admin.failedTask();
      // Enqueued after the worker ran, so it waits: its args are all there is to hide.
      const greet = await admin.tasks.enqueue(GreetingTasks, 'greet', ['secret-name']);
      const greetDetail = await admin.call<Record<string, unknown>>(
        'GET',
        `/api/tasks/${greet.id}?${admin.alias()}`,
      );
      expect(greetDetail.body).toMatchObject({
        id: greet.id,
        args: { redacted: true },
        errors: [],
      });
      expect(JSON.stringify(greetDetail.body)).not.toContain('secret-name');
      const failedDetail = await admin.call<Record<string, unknown>>(
        'GET',
        `/api/tasks/${failed}?${admin.alias()}`,
      );
      expect(failedDetail.body).toMatchObject({
        status: 'FAILED',
        args: [],
        errors: { redacted: true },
        lastError: { redacted: true },
        timeline: [{ attempt: 1, workerId: 'e2e:1-0' }],
      });
      expect(JSON.stringify(failedDetail.body)).not.toContain('sync failure');
      const shout = await admin.tasks.enqueue(GreetingTasks, 'shout', ['Bo', 2]);
      expect(
        (await admin.call('GET', `/api/tasks/${shout.id}?${admin.alias()}`)).body,
      ).toMatchObject({
        args: ['Bo', 2],
      });
      const missing = await admin.call('GET', `/api/tasks/no-such-task?${admin.alias()}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ error: { name: 'TaskResultDoesNotExist' } });
      await admin.call('POST', `/api/tasks/${shout.id}/cancel?${admin.alias()}`, { body: {} });
      await admin.call('POST', `/api/tasks/${greet.id}/cancel?${admin.alias()}`, { body: {} });
    });

    it('shares one overview read per refresh among every live stream, and reads nothing once they close', async () => {
      const url = `${admin.dashboard.origin}/threadmill/api/stream?${admin.alias()}`;
      const before = admin.dashboard.telemetryReads();
      const first = await openEventStream(url, ADMIN);
      const second = await openEventStream(url, ADMIN);
      await waitFor(() => first.events.length >= 4 && second.events.length >= 4, {
        timeoutMs: 10_000,
        what: 'four overview events on each stream',
      });
      const reads = admin.dashboard.telemetryReads() - before;
      await Promise.all([first.close(), second.close()]);
      expect(first.events[0]).toMatchObject({
        event: 'overview',
        data: { alias: admin.dashboard.alias, queues: [{ name: 'default' }, { name: 'loud' }] },
      });
      const most = Math.max(first.events.length, second.events.length);
      expect(reads).toBeLessThanOrEqual(most + 1);
      expect(reads).toBeLessThan(first.events.length + second.events.length);
      // Nothing to await for an absence: wait out a few refreshes after the server saw both leave.
      await new Promise((resolve) => setTimeout(resolve, 2 * REFRESH_MS));
      const after = admin.dashboard.telemetryReads();
      await new Promise((resolve) => setTimeout(resolve, 3 * REFRESH_MS));
      expect(admin.dashboard.telemetryReads()).toBe(after);
    });

    it("reads the last hour's activity and the worker pools", async () => {
      const activity = await admin.call<{
        bucketMs: number;
        queues: Record<string, { enqueued: number[] }>;
      }>('GET', `/api/activity?${admin.alias()}`);
      expect(activity.status).toBe(200);
      expect(activity.body.bucketMs).toBe(60_000);
      expect(activity.body.queues.default.enqueued.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      await admin.dashboard.backend.pools.beat('dashboard-pool', 10_000, {
        host: 'e2e',
        pid: 42,
        children: 2,
        slots: 4,
        queues: ['default'],
        startedAt: new Date(),
      });
      const pools = await admin.call<{ id: string; alive: boolean }[]>(
        'GET',
        `/api/pools?${admin.alias()}`,
      );
      expect(pools.body).toEqual([
        expect.objectContaining({ id: 'dashboard-pool', alive: true, pid: 42 }),
      ]);
      await admin.dashboard.backend.pools.retire('dashboard-pool');
    });
  },
);
