// Regenerates the dashboard's screenshots in docs/images/ from the real page:
// the sample app's web app (which mounts the dashboard) and a worker pool, run
// from their sources on a private redis-server on a free loopback port, with a
// few minutes of work behind them (finished, failed, running, waiting and
// deferred tasks, two schedules), photographed by headless Chromium.
//
//   node scripts/dashboard-screenshot.mjs [--out docs/images] [--minutes 3]
//
// Needs redis-server on the PATH and Chromium at /usr/bin/chromium (or
// CHROMIUM_PATH). Everything it starts is stopped before it exits.
import { cpSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';

import {
  canSetHostName,
  cleanUp,
  freePort,
  FROM_SOURCES,
  onCleanUp,
  ROOT,
  run,
  sampleEnv,
  sleep,
  startNode,
  startRedis,
  waitFor,
  WORKER_HOST,
} from './sample-stage.mjs';

// The tests' Chromium (test/helpers/chromium.ts), required from its source
// as the sample app is, so the pictures are taken by the browser the tests use.
const require = createRequire(import.meta.url);
require('../test/helpers/transpile-register.js');
const { launchChromium } = require('../test/helpers/chromium.ts');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const out = resolve(option('--out', join(ROOT, 'docs', 'images')));
/** How long work flows before the pictures, so the charts have a few minutes to show. */
const minutes = Number(option('--minutes', '3'));

/**
 * Where the processes run from, as root: a copy of the sources made for the
 * run, so the stacks on the pictures read like a deployed app's.
 */
const APP_DIR = '/app';

/** waitFor, taking a check that fails (nothing answers yet) for a no. */
const waitForAnswer = (what, check) => waitFor(what, () => check().catch(() => false));

async function main() {
  await run(process.execPath, [join(ROOT, 'scripts', 'build-dashboard.mjs')], { cwd: ROOT });

  const redisPort = await startRedis('threadmill-dashboard-shot-');
  const webPort = await freePort();
  const env = sampleEnv(redisPort, { PORT: String(webPort) });
  // The sample app, run from its sources: its web app (which serves the dashboard) and a pool.
  let cwd = ROOT;
  if (userInfo().uid === 0 && !existsSync(APP_DIR)) {
    mkdirSync(APP_DIR);
    onCleanUp(async () => rmSync(APP_DIR, { recursive: true, force: true }));
    for (const part of ['lib', 'sample', join('test', 'helpers'), 'package.json']) {
      cpSync(join(ROOT, part), join(APP_DIR, part), { recursive: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(APP_DIR, 'node_modules'));
    cwd = APP_DIR;
  }
  const hostName = (await canSetHostName()) ? WORKER_HOST : undefined;
  const stdio = ['ignore', 'ignore', 'inherit'];
  startNode([...FROM_SOURCES, 'sample/src/worker.ts', 'worker', '--threads', '4'], {
    cwd,
    env,
    hostName,
    stdio,
  });
  startNode([...FROM_SOURCES, 'sample/src/main.ts'], { cwd, env, stdio });
  const app = `http://127.0.0.1:${webPort}`;
  const base = `${app}/threadmill/`;
  await waitForAnswer('the web app', async () => (await fetch(`${base}api/meta`)).ok);

  // Tasks enqueued and read through the sample's HTTP API; queues changed through the dashboard's.
  const request = async (method, url, body, headers = {}) => {
    const response = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const enqueue = async (name, body, count = 1) => {
    const ids = [];
    for (let i = 0; i < count; i++)
      ids.push((await request('POST', `${app}/tasks/${name}`, body)).id);
    return ids;
  };
  const status = async (id) => (await request('GET', `${app}/tasks/${id}`)).status;
  const dashboardAct = (method, path, body = {}) =>
    request(method, `${base}api/${path}?alias=default`, body, { 'x-threadmill-dashboard': '1' });
  // Two schedules, added with the sample's command line.
  const cli = (...command) =>
    run(process.execPath, [...FROM_SOURCES, 'sample/src/worker.ts', ...command], { cwd, env });
  await cli('schedules', 'add', 'nightly-report', 'sample.echo', '--cron', '0 3 * * *');
  await cli('schedules', 'add', 'digest', 'sample.greet', '--every', '60000', '--args', '["team"]');

  // Work flowing for a few minutes: a burst of quick tasks every 10 s, some of them failing.
  const failures = [
    'upstream timed out after 30000 ms',
    'invoice 1042 is already paid',
    'SMTP 421: service not available',
  ];
  const end = Date.now() + minutes * 60_000;
  for (let round = 0; Date.now() < end; round++) {
    await enqueue('sample.sleep', { args: [50 + (round % 5) * 60] }, 5 + ((round * 7) % 13));
    await enqueue('sample.greet', { args: ['Ada'] }, 1 + (round % 4));
    if (round % 3 === 1) {
      await enqueue('sample.fail', { args: [failures[Math.floor(round / 3) % failures.length]] });
    }
    await sleep(10_000);
  }
  const [failed] = await enqueue('sample.fail', {
    args: ['the report for 2026-11-29 has no rows'],
  });
  await waitForAnswer('a failed task', async () => (await status(failed)) === 'FAILED');
  // Two long tasks hold two slots; a backlog waits behind a paused queue; one task is deferred.
  await enqueue('sample.sleep', { args: [3_600_000] }, 2);
  await dashboardAct('POST', 'queues/emails/pause');
  await enqueue('sample.greet', { args: ['Linus'] }, 40);
  await enqueue('sample.echo', {
    args: ['later'],
    runAfter: new Date(Date.now() + 3_600_000).toISOString(),
  });
  await dashboardAct('PUT', 'queues/default/limits', { concurrency: 8 });

  const browser = await launchChromium();
  onCleanUp(() => browser.close());
  mkdirSync(out, { recursive: true });
  const shoot = async (viewport, route, ready, file) => {
    const context = await browser.newContext({
      viewport,
      colorScheme: 'light',
      deviceScaleFactor: 1,
    });
    const page = await context.newPage();
    await page.goto(`${app}/threadmill#/${route}`);
    await ready(page);
    await sleep(300);
    await page.screenshot({ path: join(out, file), fullPage: true });
    await context.close();
    process.stdout.write(`wrote ${join(out, file)}\n`);
  };
  const desktop = { width: 1280, height: 800 };
  const overviewReady = (page) => page.locator('.chart svg').nth(3).waitFor();
  await shoot(desktop, '', overviewReady, 'dashboard-overview.png');
  await shoot(
    desktop,
    'queues/default/failed',
    // One task selected, so the bulk buttons show their count.
    (page) => page.locator('table.tasks tbody tr input[type=checkbox]').first().check(),
    'dashboard-failed.png',
  );
  await shoot(
    desktop,
    `tasks/${failed}`,
    (page) => page.locator('pre.stack').waitFor(),
    'dashboard-task.png',
  );
  await shoot({ width: 375, height: 812 }, '', overviewReady, 'dashboard-phone.png');
}

try {
  await main();
} finally {
  await cleanUp();
}
