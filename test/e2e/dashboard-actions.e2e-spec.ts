import { QueueService, ScheduleService, TaskResultStatus } from '../../lib';
import { GreetingTasks } from '../fixtures/greeting.tasks';
import { useAdminDashboard } from '../helpers/admin-dashboard';
import type { DashboardStack } from '../helpers/dashboard-app';

// The dashboard's actions over real HTTP, each through the services the
// command line uses and each logged: Express on Redis and Fastify on SQLite.

describe.each<DashboardStack>(['express+redis', 'fastify+sqlite', 'express+postgres'])(
  'dashboard actions (%s)',
  (stack) => {
    jest.setTimeout(20_000);
    const admin = useAdminDashboard(stack);

    it('cancels a waiting task, retries a failed one and removes a final one, logging each', async () => {
      const waiting = await admin.tasks.enqueue(GreetingTasks, 'greet', ['Cy']);
      const cancel = await admin.call('POST', `/api/tasks/${waiting.id}/cancel?${admin.alias()}`, {
        body: {},
      });
      expect(cancel.body).toEqual({ outcome: 'cancelled' });
      expect(await admin.statusOf(waiting.id)).toBe(TaskResultStatus.CANCELLED);
      expect(admin.lastAction()).toEqual({
        who: 'ada',
        action: 'cancel',
        alias: admin.dashboard.alias,
        backend: admin.dashboard.alias,
        target: `task ${waiting.id}`,
        count: 1,
      });
      const again = await admin.call('POST', `/api/tasks/${waiting.id}/cancel?${admin.alias()}`, {
        body: {},
      });
      expect(again.status).toBe(409);

      const failed = await admin.failedTask();
      expect(
        (await admin.call('POST', `/api/tasks/${failed}/retry?${admin.alias()}`, { body: {} }))
          .body,
      ).toEqual({ outcome: 'retried' });
      expect(await admin.statusOf(failed)).toBe(TaskResultStatus.READY);
      expect(admin.lastAction()).toMatchObject({ action: 'retry', count: 1 });
      expect(
        (await admin.call('POST', `/api/tasks/${failed}/remove?${admin.alias()}`, { body: {} }))
          .status,
      ).toBe(409);

      expect(
        (await admin.call('POST', `/api/tasks/${waiting.id}/remove?${admin.alias()}`, { body: {} }))
          .body,
      ).toEqual({ outcome: 'removed' });
      await expect(admin.dashboard.backend.tasks.getResult(waiting.id)).rejects.toThrow(
        /No task result/,
      );
      await admin.call('POST', `/api/tasks/${failed}/cancel?${admin.alias()}`, { body: {} });
    });

    it('counts a bulk action for its confirmation, then does it', async () => {
      const failed = [await admin.failedTask(), await admin.failedTask()];
      const filter = { queue: 'default', status: 'failed' };
      const dry = await admin.call<{ count: number }>('POST', `/api/tasks/retry?${admin.alias()}`, {
        body: { ...filter, dryRun: true },
      });
      const counts = (await admin.dashboard.backend.reads.telemetry(60_000)).queues.default.counts;
      expect(dry.body.count).toBe(counts.failed);
      expect(dry.body.count).toBeGreaterThanOrEqual(2);
      const before = admin.actions.length;
      const done = await admin.call<{ count: number }>(
        'POST',
        `/api/tasks/retry?${admin.alias()}`,
        {
          body: filter,
        },
      );
      expect(done.body.count).toBe(dry.body.count);
      for (const id of failed) expect(await admin.statusOf(id)).toBe(TaskResultStatus.READY);
      expect(admin.actions.slice(before)).toEqual([
        expect.objectContaining({
          action: 'retry',
          target: 'failed tasks of queue "default"',
          count: dry.body.count,
        }),
      ]);
      const byIds = { ids: [...failed, 'no-such-task'] };
      expect(
        (
          await admin.call('POST', `/api/tasks/cancel?${admin.alias()}`, {
            body: { ...byIds, dryRun: true },
          })
        ).body,
      ).toEqual({ count: 2 });
      expect(
        (await admin.call('POST', `/api/tasks/cancel?${admin.alias()}`, { body: byIds })).body,
      ).toEqual({
        count: 2,
      });
      expect(
        (
          await admin.call('POST', `/api/tasks/remove?${admin.alias()}`, {
            body: { queue: 'default', status: 'cancelled', dryRun: true },
          })
        ).body,
      ).toMatchObject({ count: expect.any(Number) });
      expect(
        (
          await admin.call('POST', `/api/tasks/retry?${admin.alias()}`, {
            body: { queue: 'default', status: 'successful' },
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await admin.call('POST', `/api/tasks/retry?${admin.alias()}`, {
            body: { queue: 'nowhere' },
          })
        ).status,
      ).toBe(404);
    });

    it('pauses, resumes and limits a queue, and runs a schedule now', async () => {
      const queues = admin.dashboard.app.get(QueueService);
      const target = { alias: admin.dashboard.alias };
      expect(
        (await admin.call('POST', `/api/queues/loud/pause?${admin.alias()}`, { body: {} })).body,
      ).toEqual({
        paused: true,
      });
      expect((await queues.state('loud', target)).paused).toBe(true);
      expect(admin.lastAction()).toMatchObject({ action: 'pause', target: 'queue "loud"' });
      await admin.call('POST', `/api/queues/loud/resume?${admin.alias()}`, { body: {} });
      expect((await queues.state('loud', target)).paused).toBe(false);
      expect(
        (await admin.call('POST', `/api/queues/nowhere/pause?${admin.alias()}`, { body: {} }))
          .status,
      ).toBe(404);

      const limits = { concurrency: 3, rateLimit: { max: 10, perMs: 1000 } };
      expect(
        (await admin.call('PUT', `/api/queues/loud/limits?${admin.alias()}`, { body: limits }))
          .body,
      ).toEqual({ limits });
      expect((await queues.state('loud', target)).limits).toEqual(limits);
      expect(
        (
          await admin.call('PUT', `/api/queues/loud/limits?${admin.alias()}`, {
            body: { concurrency: 0 },
          })
        ).status,
      ).toBe(400);
      await admin.call('PUT', `/api/queues/loud/limits?${admin.alias()}`, { body: {} });
      expect((await queues.state('loud', target)).limits).toBeNull();

      await admin.dashboard.app.get(ScheduleService).add('dashboard-nightly', {
        task: 'GreetingTasks.greet',
        cron: '0 3 * * *',
        args: ['night'],
        alias: admin.dashboard.alias,
      });
      const schedules = await admin.call<{ id: string; args: unknown }[]>(
        'GET',
        `/api/schedules?${admin.alias()}`,
      );
      expect(schedules.body).toEqual([
        expect.objectContaining({ id: 'dashboard-nightly', args: { redacted: true } }),
      ]);
      const run = await admin.call<{ taskId: string }>(
        'POST',
        `/api/schedules/dashboard-nightly/run?${admin.alias()}`,
        { body: {} },
      );
      const record = await admin.dashboard.backend.tasks.getResult(run.body.taskId);
      expect(record.task.schedule?.id).toBe('dashboard-nightly');
      expect(admin.lastAction()).toMatchObject({ action: 'run', count: 1 });
      expect(
        (await admin.call('POST', `/api/schedules/nothing/run?${admin.alias()}`, { body: {} }))
          .status,
      ).toBe(404);
    });
  },
);
