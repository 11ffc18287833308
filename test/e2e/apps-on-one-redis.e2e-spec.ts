import { Redis } from 'ioredis';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { TaskResultStatus } from '../../lib/core/task-result-status.enum';
import { tickTaskId } from '../../lib/schedule/schedule-ticker';
import {
  APP_CLI,
  runCli,
  startNodeProcess,
  untilOutput,
  type RunningCli,
} from '../helpers/cli-process';
import { startRedisServer, type RedisServerHandle } from '../helpers/redis-server';
import { testAlias } from '../helpers/test-alias';
import { waitFor } from '../helpers/wait-for';
import { storeRules } from '../../lib/lifecycle/store-rules';

// Two apps (test/fixtures/worker/app-main.ts: the sample app plus the tasks
// of `billing` or of `shop`, each declaring a schedule ticking every second)
// share one private Redis and one alias name: once with a key prefix each,
// once with an app name each. Their real pools start one after the other and
// the first restarts; neither sync may remove the other's declared schedule,
// so every tick of both from the second start on runs; the schedules each
// added by hand with the CLI stay; and every key on the server is under the
// prefix of the app that wrote it.

const SYNCED =
  /Declared schedules of backend "[^"]+" synced: (\d+) added, (\d+) changed, (\d+) removed/;
const SYNC_OR_TICK_TROUBLE = /not enqueued this pass|could not be synced|is now app/;

interface AppSetup {
  readonly name: 'billing' | 'shop';
  /** The queue of its task, the only one its pool serves. */
  readonly queue: string;
  readonly task: string;
  /** Its declared schedule's id. */
  readonly schedule: string;
  readonly prefix?: string;
  readonly app?: string;
}

const billing = {
  name: 'billing',
  queue: 'default',
  task: 'billing.invoice',
  schedule: 'billing.every-second',
} as const;
const shop = {
  name: 'shop',
  queue: 'emails',
  task: 'shop.restock',
  schedule: 'shop.every-second',
} as const;

describe('apps sharing one Redis (e2e: real pools and CLI)', () => {
  jest.setTimeout(240_000);
  const started: RunningCli[] = [];
  const backends: RedisBackend[] = [];
  let server: RedisServerHandle | null = null;
  let admin: Redis | null = null;

  /** Takes a run's processes, connections and server down. */
  async function stopAll(): Promise<void> {
    for (const cli of started.splice(0)) await cli.killGroup();
    for (const backend of backends.splice(0)) await backend.close();
    admin?.disconnect();
    admin = null;
    await server?.stop();
    server = null;
  }

  afterEach(stopAll);

  /**
   * Runs both apps on a Redis of their own. Returns every key it holds at the
   * end, and each app's `schedules list` as `id state app` lines.
   */
  async function runTwoApps(
    apps: readonly [AppSetup, AppSetup],
  ): Promise<{ keys: string[]; listings: Record<string, string[]> }> {
    // With AOF on, so no process warns that the store keeps nothing on disk.
    server = await startRedisServer(['--appendonly', 'yes']);
    const url = server.url;
    const alias = testAlias();
    const env = (setup: AppSetup): Record<string, string> => ({
      REDIS_URL: url,
      THREADMILL_ALIAS: alias,
      THREADMILL_MAINTENANCE_INTERVAL_MS: '250',
      THREADMILL_FIXTURE_APP: setup.name,
      ...(setup.prefix && { THREADMILL_REDIS_PREFIX: setup.prefix }),
      ...(setup.app && { THREADMILL_APP: setup.app }),
    });
    const command = (setup: AppSetup, args: readonly string[]) => runCli(args, env(setup), APP_CLI);
    const startPool = (setup: AppSetup): RunningCli =>
      startNodeProcess(
        APP_CLI,
        ['worker', '--processes', '1', '--threads', '2', '--queues', setup.queue],
        started,
        { env: env(setup) },
      );
    /** The counts of the pool's sync, once it has logged them. */
    const synced = async (pool: RunningCli): Promise<number[]> =>
      (await untilOutput(pool, SYNCED)).slice(1, 4).map(Number);
    // The test's own reads, through each app's own configuration.
    const readers = apps.map((setup) => {
      const backend = new RedisBackend(
        alias,
        {
          backend: RedisBackend,
          url,
          queues: ['default', 'emails'],
          options: setup.prefix ? { prefix: setup.prefix } : {},
        },
        storeRules,
      );
      backends.push(backend);
      return backend;
    });

    // A schedule each adds by hand: declaration syncs never remove one.
    for (const setup of apps) {
      const added = await command(setup, [
        'schedules',
        'add',
        `${setup.name}.by-hand`,
        setup.task,
        '--every',
        '60000',
      ]);
      expect(added).toMatchObject({ code: 0 });
    }

    let firstPool = startPool(apps[0]);
    await expect(synced(firstPool)).resolves.toEqual([1, 0, 0]);
    const secondPool = startPool(apps[1]);
    // The fault: this sync removed the first app's declared schedule.
    await expect(synced(secondPool)).resolves.toEqual([1, 0, 0]);
    const bothSyncedMs = Date.now();
    // A graceful stop (as a deploy's), so no tick's task is lost with it.
    firstPool.process.kill('SIGTERM');
    await expect(firstPool.exited).resolves.toMatchObject({ code: 0 });
    firstPool = startPool(apps[0]);
    await expect(synced(firstPool)).resolves.toEqual([0, 0, 0]);

    // Every tick of both schedules from the second sync on: enqueued, and run by its own app.
    const fromTick = Math.ceil(bothSyncedMs / 1000) * 1000;
    for (const [i, setup] of apps.entries()) {
      const store = readers[i].schedules;
      const lastTickMs = await waitFor(
        async () => {
          const tick = (await store.getSchedule(setup.schedule))?.lastTick;
          return tick && tick.tickMs >= fromTick + 4000 ? tick.tickMs : null;
        },
        { timeoutMs: 60_000, intervalMs: 100, what: `5 ticks of ${setup.schedule}` },
      );
      const ids: string[] = [];
      for (let tick = fromTick; tick <= lastTickMs; tick += 1000) {
        ids.push(tickTaskId(setup.schedule, tick));
      }
      await waitFor(
        async () => {
          for (const id of ids) {
            const { status } = await readers[i].tasks.getResult(id);
            if (status !== TaskResultStatus.SUCCESSFUL) return false;
          }
          return true;
        },
        { timeoutMs: 30_000, intervalMs: 100, what: `every tick of ${setup.schedule} run` },
      );
    }

    for (const setup of apps) {
      expect(await command(setup, ['enqueue', setup.task])).toMatchObject({ code: 0 });
    }
    for (const pool of [firstPool, secondPool]) {
      expect(pool.output()).not.toMatch(SYNC_OR_TICK_TROUBLE);
    }

    // Everything stored, pools still running: the keys as both apps left them.
    admin = new Redis(url);
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await admin.scan(cursor, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    // Listed by each app's CLI: id, task, when, state, ..., app (the last column).
    const listings: Record<string, string[]> = {};
    for (const setup of apps) {
      const listed = await command(setup, ['schedules', 'list']);
      expect(listed.code).toBe(0);
      listings[setup.name] = listed.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => {
          const cells = line.split('\t');
          return `${cells[0]} ${cells[3]} ${cells[8]}`;
        });
    }
    return { keys: keys.sort(), listings };
  }

  it('two apps on one Redis, each with its own prefix or app name, keep their keys and their declared schedules apart', async () => {
    // A prefix each: nothing of one app is in the other's keys.
    const prefixed = await runTwoApps([
      { ...billing, prefix: 'billing' },
      { ...shop, prefix: 'shop' },
    ]);
    expect(prefixed.keys.filter((key) => key.startsWith('billing:{')).length).toBeGreaterThan(5);
    expect(prefixed.keys.filter((key) => key.startsWith('shop:{')).length).toBeGreaterThan(5);
    expect(prefixed.keys.filter((key) => !/^(billing|shop):\{/.test(key))).toEqual([]);
    expect(prefixed.listings).toEqual({
      billing: [
        'billing.by-hand active, runtime default',
        'billing.every-second active, declared default',
      ],
      shop: ['shop.by-hand active, runtime default', 'shop.every-second active, declared default'],
    });
    await stopAll();

    // An app name each, one prefix: one set of keys, each schedule its app's.
    const named = await runTwoApps([
      { ...billing, app: 'billing' },
      { ...shop, app: 'shop' },
    ]);
    expect(named.keys.length).toBeGreaterThan(10);
    expect(named.keys.filter((key) => !key.startsWith('threadmill:{'))).toEqual([]);
    const both = [
      'billing.by-hand active, runtime billing',
      'billing.every-second active, declared billing',
      'shop.by-hand active, runtime shop',
      'shop.every-second active, declared shop',
    ];
    expect(named.listings).toEqual({ billing: both, shop: both });
  });
});
