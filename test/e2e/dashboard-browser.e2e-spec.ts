import type { IncomingMessage } from 'node:http';

import Redis from 'ioredis';
import type { Browser, BrowserContext, Page } from 'playwright-core';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import type { TaskRecord } from '../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { launchChromium } from '../helpers/chromium';
import { startCli, type RunningCli } from '../helpers/cli-process';
import { startDashboardApp, type DashboardApp } from '../helpers/dashboard-browser-app';
import { readyRecord } from '../helpers/ready-record';
import { removeAliasKeys } from '../helpers/redis-cleanup';
import { testAlias } from '../helpers/test-alias';
import { testRedisUrl } from '../helpers/test-redis-url';
import { waitFor } from '../helpers/wait-for';
import { storeRules } from '../../lib/lifecycle/store-rules';

// The dashboard in a real browser (headless Chromium), served by a real Nest
// app on Express, over the run's real Redis, with a real worker pool (the
// fixture CLI, one child of 4 slots) running what the page acts on.
// Requests with `x-viewer: read-only` may read but not act.

const QUEUES = ['default', 'emails'];

describe('dashboard in a browser (e2e: Express, Redis, a real pool)', () => {
  jest.setTimeout(60_000);
  const alias = testAlias();
  const started: RunningCli[] = [];
  let backend: RedisBackend;
  let redis: Redis;
  let browser: Browser;
  let dashboard: DashboardApp;
  let pool: RunningCli;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    backend = new RedisBackend(
      alias,
      {
        backend: RedisBackend,
        url: testRedisUrl(),
        queues: QUEUES,
      },
      storeRules,
    );
    redis = new Redis(testRedisUrl());
    // Paused before the pool starts: the first test watches it drain once resumed.
    await backend.control.pauseQueue('default');
    pool = startCli(
      ['worker', '--alias', alias, '--processes', '1', '--threads', '4'],
      { REDIS_URL: testRedisUrl(), THREADMILL_ALIAS: alias, THREADMILL_LOG_LEVEL: 'debug' },
      started,
    );
    [browser, dashboard] = await Promise.all([
      launchChromium(),
      startDashboardApp(
        'express',
        { [alias]: { backend: RedisBackend, url: testRedisUrl(), queues: QUEUES } },
        {
          refreshMs: 250,
          authorize: (request, action) =>
            action === 'read' || (request as IncomingMessage).headers['x-viewer'] !== 'read-only',
        },
      ),
      waitFor(() => pool.liveChildren().length === 1, {
        timeoutMs: 40_000,
        intervalMs: 100,
        what: 'the pool child to be ready',
      }),
    ]);
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await dashboard?.app.close();
    for (const cli of started) await cli.killGroup();
    await backend?.close();
    if (redis) {
      await removeAliasKeys(redis, alias);
      await redis.quit();
    }
  });

  async function openPage(route = '', headers: Record<string, string> = {}): Promise<Page> {
    const context = await browser.newContext({ extraHTTPHeaders: headers });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${dashboard.pageUrl}#/${route}`);
    return page;
  }

  /** Resolves once the overview's cell of `queue` and `segment` reads `text`. */
  async function countShows(page: Page, queue: string, segment: string, text: string) {
    await page
      .locator(`tr[data-queue="${queue}"] td[data-segment="${segment}"]`, {
        hasText: new RegExp(`^${text}$`),
      })
      .waitFor({ timeout: 20_000 });
  }

  const sleeps = (count: number, queue: string): TaskRecord[] =>
    Array.from({ length: count }, () =>
      readyRecord(alias, { name: 'sample.sleep', args: [20], queue }),
    );

  const statuses = async (records: readonly TaskRecord[]) =>
    (await Promise.all(records.map((r) => backend.tasks.getResult(r.id)))).map((r) => r.status);

  async function failedTask(queue: string, message: string): Promise<TaskRecord> {
    const record = readyRecord(alias, { name: 'sample.fail', args: [message], queue });
    await backend.tasks.enqueue(record);
    await waitFor(
      async () => (await backend.tasks.getResult(record.id)).status === TaskResultStatus.FAILED,
      {
        timeoutMs: 20_000,
        intervalMs: 50,
        what: 'the task to fail',
      },
    );
    return record;
  }

  // First of the file: the app has read no activity yet, as a new app's page.
  it("draws the wait and run time of the app's first task, and says what each chart measures", async () => {
    const [first] = sleeps(1, 'emails');
    await backend.tasks.enqueue(first);
    await waitFor(async () => (await statuses([first]))[0] === TaskResultStatus.SUCCESSFUL, {
      timeoutMs: 20_000,
      what: 'the first task to run',
    });
    const page = await openPage();
    for (const title of ['Wait time', 'Run time']) {
      const chart = page
        .locator('figure.chart')
        .filter({ has: page.locator('.chart-title', { hasText: new RegExp(`^${title}$`) }) });
      // One minute holds a value: a line cannot join it to another, so it is a dot.
      await chart.locator('circle.point').waitFor({ timeout: 20_000 });
      expect(await chart.locator('circle.point').count()).toBe(1);
      expect(await chart.locator('.chart-caption').textContent()).toMatch(
        /^Mean time from .+ of the tasks finished each minute over the last hour\. In ms, s or min/,
      );
    }
  });

  it('shows the counts and follows them live while the pool drains a resumed queue', async () => {
    const tasks = sleeps(24, 'default');
    await backend.tasks.enqueueMany(tasks);
    const page = await openPage();
    await countShows(page, 'default', 'ready', '24');
    await page.locator('tr[data-queue="default"]').getByText('Paused').waitFor();

    // Resumed from the page: the pool drains it, and the page follows without a reload.
    await page.getByRole('button', { name: 'Resume queue default' }).click();
    await countShows(page, 'default', 'successful', '24');
    await countShows(page, 'default', 'ready', '0');
    expect(await statuses(tasks)).toEqual(tasks.map(() => TaskResultStatus.SUCCESSFUL));
    await expect(backend.control.pausedQueues()).resolves.toEqual([]);
  });

  it('Pause stops the pool from starting tasks of the queue, and Resume starts them', async () => {
    const page = await openPage();
    await page.getByRole('button', { name: 'Pause queue default' }).click();
    await page.locator('tr[data-queue="default"]').getByText('Paused').waitFor();
    await waitFor(async () => (await backend.control.pausedQueues()).includes('default'), {
      what: 'the queue to be paused',
    });

    const held = sleeps(5, 'default');
    await backend.tasks.enqueueMany(held);
    // The pool is polling meanwhile: it runs a task of the other queue...
    const [other] = sleeps(1, 'emails');
    await backend.tasks.enqueue(other);
    await waitFor(async () => (await statuses([other]))[0] === TaskResultStatus.SUCCESSFUL, {
      timeoutMs: 20_000,
      what: 'the task of the queue that is not paused',
    });
    // ...and none of the paused queue's, which the page shows waiting.
    await countShows(page, 'default', 'ready', '5');
    expect(
      (await Promise.all(held.map((r) => backend.tasks.getResult(r.id)))).map((r) => r.startedAt),
    ).toEqual(held.map(() => null));

    await page.getByRole('button', { name: 'Resume queue default' }).click();
    await countShows(page, 'default', 'ready', '0');
    await waitFor(
      async () => (await statuses(held)).every((s) => s === TaskResultStatus.SUCCESSFUL),
      {
        timeoutMs: 20_000,
        what: 'the resumed tasks to run',
      },
    );
  });

  it("shows a failed task's stack, and Retry runs it again", async () => {
    const failed = await failedTask('default', 'invoice 1042 is already paid');
    const page = await openPage(`tasks/${failed.id}`);
    const stack = page.locator('pre.stack').first();
    await stack.waitFor();
    expect(await stack.textContent()).toMatch(/invoice 1042 is already paid[\s\S]*\n\s+at /);

    await page.getByRole('button', { name: 'Retry' }).click();
    // It runs again (and fails again: sample.fail always throws): a second attempt, a second error.
    await waitFor(
      async () => {
        const record = await backend.tasks.getResult(failed.id);
        return record.status === TaskResultStatus.FAILED && record.workerIds.length === 2;
      },
      { timeoutMs: 20_000, what: 'the retried task to run again' },
    );
    await page.locator('ol.errors > li').nth(1).waitFor({ timeout: 20_000 });
  });

  it('retries every failed task of a queue after a confirmation that shows the count', async () => {
    const failed: TaskRecord[] = [];
    for (const n of [1, 2, 3]) failed.push(await failedTask('emails', `upstream ${n} timed out`));
    const page = await openPage('queues/emails/failed');
    await page.locator(`tr[data-id="${failed[2].id}"]`).waitFor();

    await page.getByRole('button', { name: 'Retry all matching…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('This will retry 3 tasks').waitFor();
    await dialog.getByRole('button', { name: 'Retry 3 tasks' }).click();
    await page.getByRole('status').filter({ hasText: 'Retried 3 tasks.' }).waitFor();
    await waitFor(
      async () =>
        (await Promise.all(failed.map((r) => backend.tasks.getResult(r.id)))).every(
          (r) => r.workerIds.length === 2 && r.status === TaskResultStatus.FAILED,
        ),
      { timeoutMs: 20_000, what: 'the three tasks to run again' },
    );
  });

  it('lets a read-only viewer see the pages, and no action of theirs succeeds', async () => {
    const failed = await failedTask('emails', 'SMTP 421: service not available');
    const viewer = { 'x-viewer': 'read-only' };
    const page = await openPage('', viewer);
    await countShows(page, 'emails', 'failed', String(await countFailed('emails')));
    await page.getByText('Read-only').waitFor();
    expect(await page.getByRole('button', { name: /queue (default|emails)$/ }).count()).toBe(0);

    await page.goto(`${dashboard.pageUrl}#/tasks/${failed.id}`);
    await page.locator('pre.stack').first().waitFor();
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(0);

    // The page's own requests, made by hand, are refused.
    const refused = await page.evaluate(
      async ([id, on]) => {
        const post = (path: string) =>
          fetch(path, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-threadmill-dashboard': '1' },
            body: '{}',
          }).then((response) => response.status);
        return [
          await post(`api/tasks/${id}/retry?alias=${on}`),
          await post(`api/queues/emails/pause?alias=${on}`),
        ];
      },
      [failed.id, alias],
    );
    expect(refused).toEqual([403, 403]);
    expect((await backend.tasks.getResult(failed.id)).workerIds).toHaveLength(1);
    await expect(backend.control.pausedQueues()).resolves.toEqual([]);
  });

  async function countFailed(queue: string): Promise<number> {
    return (await backend.reads.telemetry(60_000)).queues[queue].counts.failed;
  }
});
