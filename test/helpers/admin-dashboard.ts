import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { TaskResultStatus, TaskService } from '../../lib';
import { EventStream } from '../../lib/core/event-stream';
import type { DashboardActionEvent } from '../../lib/core/stream-events.interface';
import { GreetingTasks } from '../fixtures/greeting.tasks';
import { startDashboardApp, type DashboardApp, type DashboardStack } from './dashboard-app';
import { dashboardClient } from './dashboard-client';

export const REFRESH_MS = 300;
export const ADMIN = { 'x-test-role': 'admin' };

/** What a test of an admin's dashboard uses; valid inside its tests (after beforeAll). */
export interface AdminDashboard {
  readonly dashboard: DashboardApp;
  readonly call: ReturnType<typeof dashboardClient>;
  readonly tasks: TaskService;
  /** Every dashboardAction event of the app so far. */
  readonly actions: DashboardActionEvent[];
  /** `alias=<the app's alias>` for a query string. */
  alias(): string;
  statusOf(id: string): Promise<TaskResultStatus>;
  lastAction(): DashboardActionEvent | undefined;
  /** A FAILED task (no retries), run as a worker slot would run it. */
  failedTask(): Promise<string>;
}

/**
 * Boots, for the tests of the describe block it is called in, a dashboard
 * whose `admin` role (header `x-test-role`) may act, as user `ada`, with
 * the fixture's `greet` args and `failSync` errors redacted, and a page
 * built into a folder of its own.
 */
export function useAdminDashboard(stack: DashboardStack): AdminDashboard {
  let assetsDir: string;
  const context = { actions: [] as DashboardActionEvent[] } as {
    -readonly [K in keyof AdminDashboard]: AdminDashboard[K];
  };
  beforeAll(async () => {
    assetsDir = mkdtempSync(join(tmpdir(), 'threadmill-dashboard-assets-'));
    writeFileSync(
      join(assetsDir, 'index.html'),
      '<!doctype html><html><head><title>Threadmill</title>' +
        '<script type="module" src="assets/app.js"></script></head><body></body></html>',
    );
    writeFileSync(join(assetsDir, 'app.js'), 'console.log("threadmill");\n');
    const dashboard = await startDashboardApp(
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
    context.dashboard = dashboard;
    context.call = dashboardClient(`${dashboard.origin}/threadmill`, ADMIN);
    context.tasks = dashboard.app.get(TaskService);
    dashboard.app.get(EventStream).on('dashboardAction', (event) => context.actions.push(event));
  });
  afterAll(async () => {
    await context.dashboard?.close();
    rmSync(assetsDir, { recursive: true, force: true });
  });
  context.alias = () => `alias=${encodeURIComponent(context.dashboard.alias)}`;
  context.statusOf = async (id) => (await context.dashboard.backend.tasks.getResult(id)).status;
  context.lastAction = () => context.actions[context.actions.length - 1];
  context.failedTask = async () => {
    const { id } = await context.tasks.enqueue(GreetingTasks, 'failSync', []);
    await context.dashboard.work('default');
    expect(await context.statusOf(id)).toBe(TaskResultStatus.FAILED);
    return id;
  };
  return context;
}
