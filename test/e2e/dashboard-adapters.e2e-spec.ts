import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import Redis from 'ioredis';
import type { Browser } from 'playwright-core';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { SqliteBackend } from '../../lib/backends/sqlite/sqlite.backend';
import { TaskResultStatus, type BackendConfig } from '../../lib';
import { launchChromium } from '../helpers/chromium';
import { startDashboardApp, type DashboardApp } from '../helpers/dashboard-browser-app';
import { readyRecord } from '../helpers/ready-record';
import { removeAliasKeys } from '../helpers/redis-cleanup';
import { testAlias } from '../helpers/test-alias';
import { testRedisUrl } from '../helpers/test-redis-url';
import { waitFor } from '../helpers/wait-for';
import { storeRules } from '../../lib/lifecycle/store-rules';

// The same page on the other adapter and the other durable store: Fastify
// over Redis, and Express over a SQLite file. One page load and one action each.

describe('dashboard in a browser (e2e: Fastify on Redis, SQLite on Express)', () => {
  jest.setTimeout(60_000);
  let browser: Browser;
  const apps: DashboardApp[] = [];
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    for (const { app } of apps) await app.close();
    for (const close of closers.reverse()) await close();
  });

  async function serve(
    adapter: 'express' | 'fastify',
    alias: string,
    config: BackendConfig,
  ): Promise<DashboardApp> {
    const started = await startDashboardApp(adapter, { [alias]: config }, { open: true });
    apps.push(started);
    return started;
  }

  it('Fastify over Redis: the overview loads, and Pause pauses the queue', async () => {
    const alias = testAlias();
    const config = { backend: RedisBackend, url: testRedisUrl(), queues: ['default', 'emails'] };
    const backend = new RedisBackend(alias, config, storeRules);
    const redis = new Redis(testRedisUrl());
    closers.push(async () => {
      await backend.close();
      await removeAliasKeys(redis, alias);
      await redis.quit();
    });
    await backend.tasks.enqueueMany([1, 2, 3].map(() => readyRecord(alias, { queue: 'emails' })));
    const { pageUrl } = await serve('fastify', alias, config);

    const context = await browser.newContext();
    closers.push(() => context.close());
    const page = await context.newPage();
    await page.goto(pageUrl);
    const ready = page.locator('tr[data-queue="emails"] td[data-segment="ready"]');
    await ready.filter({ hasText: /^3$/ }).waitFor();

    await page.getByRole('button', { name: 'Pause queue emails' }).click();
    await page.locator('tr[data-queue="emails"]').getByText('Paused').waitFor();
    await expect(backend.control.pausedQueues()).resolves.toEqual(['emails']);
  });

  it('SQLite on Express: a task opens from its list, and Cancel cancels it', async () => {
    const alias = testAlias();
    const dir = mkdtempSync(join(tmpdir(), 'threadmill-dashboard-'));
    const config = {
      backend: SqliteBackend,
      url: `sqlite://${join(dir, 'tasks.db')}`,
      queues: ['default'],
    };
    const { pageUrl } = await serve('express', alias, config);
    const backend = new SqliteBackend(alias, config, storeRules);
    closers.push(async () => {
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const task = readyRecord(alias, { name: 'report.build', args: ['2026-11'] });
    await backend.tasks.enqueue(task);

    const context = await browser.newContext();
    closers.push(() => context.close());
    const page = await context.newPage();
    await page.goto(`${pageUrl}#/queues/default/ready`);
    await page.getByRole('link', { name: `Task ${task.id}` }).click();
    await page.getByText('"2026-11"').waitFor();

    await page.getByRole('button', { name: 'Cancel task' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel task' }).click();
    await waitFor(
      async () => (await backend.tasks.getResult(task.id)).status === TaskResultStatus.CANCELLED,
      {
        what: 'the task to be cancelled',
      },
    );
    await page.locator('.status.cancelled').first().waitFor();
  });
});
