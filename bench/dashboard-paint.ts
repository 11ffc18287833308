import type { BackendConstructor } from '../lib/core/backend-config.interface';
import { launchChromium } from '../test/helpers/chromium';
import { startDashboardApp } from '../test/helpers/dashboard-browser-app';

/** What the benchmark needs of the store behind the page: the runner's own backend, on its alias. */
export interface DashboardStore {
  Backend: BackendConstructor;
  url: string;
  alias: string;
  queue: string;
}

/**
 * Opens the dashboard's overview `loads` times, each in a fresh browser
 * context (an empty cache, as a first visit), on a real Nest app on Express
 * serving `store` (its tasks already stored), and returns each time from
 * the navigation to the queue’s ready count shown (ms). The page is built
 * beside the compiled dashboard module beforehand (buildDashboardPage).
 */
export async function measureDashboardPaint(
  store: DashboardStore,
  loads: number,
): Promise<number[]> {
  const { Backend, url, alias, queue } = store;
  const dashboard = await startDashboardApp(
    'express',
    { [alias]: { backend: Backend, url, queues: [queue] } },
    { open: true },
  );
  const browser = await launchChromium();
  try {
    const times: number[] = [];
    for (let load = 0; load < loads; load++) {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const started = performance.now();
        await page.goto(dashboard.pageUrl);
        await page.waitForSelector(`tr[data-queue="${queue}"] td[data-segment="ready"] a`);
        times.push(performance.now() - started);
      } finally {
        await context.close();
      }
    }
    return times;
  } finally {
    await browser.close();
    await dashboard.app.close();
  }
}
