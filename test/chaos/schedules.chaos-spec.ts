import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { Test, type TestingModule } from '@nestjs/testing';

import { ScheduleService, ThreadmillModule, type BackendConfig } from '../../lib';
import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { SqliteBackend } from '../../lib/backends/sqlite/sqlite.backend';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import { ChaosTasks } from '../fixtures/worker/chaos.tasks';
import { testAlias } from '../helpers/test-alias';
import {
  CHAOS_QUEUES,
  CHAOS_TASK,
  audit,
  auditLine,
  chaosScenario,
  report,
  settled,
  type RunningPool,
} from './chaos-harness';
import { storeRules } from '../../lib/lifecycle/store-rules';

// A schedule ticking every second while its pools are killed with kill -9
// (whole process groups) and restarted, some of them, then all at once for a
// while, and app instances (which run no maintenance) add the same schedule at
// run time. Every tick from the first to the last must have exactly one task,
// and none may run twice: ticks that fell while every pool was down are caught
// up (well within the catch-up window), racing passes enqueue a tick once, and
// no restart repeats one. Tasks a killed pool held end WorkerLost once its
// heartbeat lapses (3 s here); they still exist once.

const SCHEDULE_ID = 'chaos-every-second';
const TASK_MS = 5;
const POOL_ARGS = ['--processes', '1', '--threads', '2', '--heartbeat-tolerance', '3000'];

/** What one scenario kills and restarts, by the ms since its start. */
interface Step {
  readonly atMs: number;
  readonly kill?: readonly number[];
  readonly restart?: readonly number[];
  readonly note?: string;
}

interface Stage {
  readonly alias: string;
  /** The test's own reads. */
  readonly backend: TaskBackend;
  readonly journal: string;
  /** Where the app instances and pools find the store. */
  readonly config: BackendConfig;
  readonly env: Record<string, string>;
}

describe('chaos: a schedule every second under pools killed and restarted', () => {
  jest.setTimeout(240_000);
  const scenario = chaosScenario();
  const apps: TestingModule[] = [];
  let dir = '';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-chaos-schedules-'));
  });

  afterAll(async () => {
    for (const app of apps.splice(0)) await app.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** One app instance on the stage's store: it adds schedules and runs no maintenance. */
  async function appInstance(stage: Stage): Promise<ScheduleService> {
    const app = await Test.createTestingModule({
      imports: [ThreadmillModule.forRoot({ backends: { [stage.alias]: stage.config } })],
      providers: [ChaosTasks],
    }).compile();
    await app.init();
    apps.push(app);
    return app.get(ScheduleService);
  }

  async function run(
    name: string,
    stage: Stage,
    pools: number,
    runMs: number,
    steps: readonly Step[],
  ): Promise<void> {
    const instances = await Promise.all([appInstance(stage), appInstance(stage)]);
    const definition = {
      task: CHAOS_TASK,
      every: 1000,
      args: [stage.journal, TASK_MS],
      backend: stage.alias,
    };
    // Both instances add the same schedule at once: a replacement by id, one schedule.
    await Promise.all(instances.map((schedules) => schedules.add(SCHEDULE_ID, definition)));
    const firstTickMs = (await instances[0].get(SCHEDULE_ID)).nextTickAt!.getTime();

    const env = { ...stage.env, THREADMILL_MAINTENANCE_INTERVAL_MS: '250' };
    const running: (RunningPool | null)[] = [];
    for (let i = 0; i < pools; i++) running.push(scenario.startPool(POOL_ARGS, env));
    const startedAt = Date.now();
    const notes: string[] = [];
    for (const step of steps) {
      await sleep(Math.max(0, startedAt + step.atMs - Date.now()));
      await Promise.all(
        (step.kill ?? []).map(async (i) => {
          await running[i]?.killGroup();
          running[i] = null;
        }),
      );
      for (const i of step.restart ?? []) running[i] = scenario.startPool(POOL_ARGS, env);
      if (step.note) notes.push(step.note);
    }
    await sleep(Math.max(0, startedAt + runMs - Date.now()));
    await instances[1].pause(SCHEDULE_ID);
    // A pass that read the schedule just before the pause may still enqueue one tick; let it.
    await sleep(1_000);
    const lastTickMs = (await instances[0].get(SCHEDULE_ID)).lastTick!.at.getTime();

    const ids: string[] = [];
    for (let tick = firstTickMs; tick <= lastTickMs; tick += 1000) {
      ids.push(`schedule:${SCHEDULE_ID}:${tick}`);
    }
    const drained = await settled(stage.backend, 30_000);
    const result = await audit(stage.backend, ids, stage.journal);
    report(
      auditLine(
        name,
        result,
        `${ids.length} ticks over ${Math.round((lastTickMs - firstTickMs) / 1000)} s; ${notes.join('; ')}`,
      ),
    );
    for (const pool of running) pool?.process.kill('SIGTERM');

    expect(drained).toBe(true);
    expect(ids.length).toBeGreaterThanOrEqual(Math.floor(runMs / 1000) - 5);
    // Every tick's task exists, once (its id is the tick's), and is final.
    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    // None ran twice, none claims a run it never had.
    expect(result.duplicates).toEqual([]);
    expect(result.successWithoutRun).toEqual([]);
    expect(Object.keys(result.failed).filter((reason) => reason !== 'WorkerLost')).toEqual([]);
    expect(result.successful + (result.failed.WorkerLost ?? 0)).toBe(ids.length);
  }

  it('Redis: three pools, two app instances, a minute: every tick enqueued once and run once', async () => {
    const redis = scenario.stage('schedules-redis');
    const stage: Stage = {
      alias: redis.alias,
      backend: redis.backend,
      journal: redis.journal,
      config: { backend: RedisBackend, url: scenario.server().url, queues: CHAOS_QUEUES },
      env: redis.env,
    };
    await run('schedule every second, 3 pools on Redis', stage, 3, 60_000, [
      { atMs: 10_000, kill: [0], note: 'pool 0 killed at 10 s' },
      { atMs: 16_000, restart: [0] },
      { atMs: 24_000, kill: [1, 2], note: 'pools 1 and 2 killed at 24 s' },
      { atMs: 30_000, restart: [1, 2] },
      { atMs: 40_000, kill: [0, 1, 2], note: 'every pool killed from 40 to 48 s' },
      { atMs: 48_000, restart: [0, 1, 2] },
    ]);
  });

  it('SQLite: two pools in processes of their own on one file: every tick enqueued once and run once', async () => {
    const alias = testAlias();
    const file = join(dir, 'schedules.db');
    const config: BackendConfig = { backend: SqliteBackend, url: file, queues: CHAOS_QUEUES };
    const backend = new SqliteBackend(alias, config, storeRules);
    try {
      const stage: Stage = {
        alias,
        backend,
        journal: join(dir, 'schedules-sqlite.log'),
        config,
        // No REDIS_URL: the fixture app keeps its tasks in this SQLite file.
        env: { REDIS_URL: '', THREADMILL_SQLITE_FILE: file, THREADMILL_ALIAS: alias },
      };
      await run('schedule every second, 2 pools on SQLite', stage, 2, 30_000, [
        { atMs: 8_000, kill: [0], note: 'pool 0 killed at 8 s' },
        { atMs: 12_000, restart: [0] },
        { atMs: 18_000, kill: [0, 1], note: 'both pools killed from 18 to 23 s' },
        { atMs: 23_000, restart: [0, 1] },
      ]);
    } finally {
      await backend.close();
    }
  });
});
