import { Module, type INestApplicationContext, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import Redis from 'ioredis';

import type { BackendConfig } from '../../lib/core/backend-config.interface';
import { PostgresBackend } from '../../lib/backends/postgres/postgres.backend';
import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { RedisKeys } from '../../lib/backends/redis/redis-keys';
import type { TaskBackend } from '../../lib/core/task-backend.interface';
import { storeRules } from '../../lib/lifecycle/store-rules';
import { ThreadmillModule } from '../../lib/threadmill.module';
import { runCli, startCli, type CliOutcome, type RunningCli } from './cli-process';
import { postgresQuery } from './postgres-query';
import { createTestSchema, type TestSchema } from './postgres-schema';
import { removeAliasKeys } from './redis-cleanup';
import { testAlias } from './test-alias';
import { testRedisUrl } from './test-redis-url';

/** How often the stage's pools run their maintenance pass (ms): short, so recoveries show soon. */
export const STAGE_MAINTENANCE_INTERVAL_MS = 1000;

/** The stores a stage runs the sample CLI on: the run's Redis, or a schema of its own on the run's Postgres. */
export type StageStore = 'redis' | 'postgres';

/** Both stores, for `describe.each` over a file that must hold on each. */
export const STAGE_STORES: readonly StageStore[] = ['redis', 'postgres'];

/** A feed whose cross-process listeners a stage can count. */
export type StageFeed = 'finished' | 'live';

/** One test's own alias on the run's Redis (or schema on its Postgres), and the fixture CLI pointed at it. */
export interface CliStage<B extends TaskBackend = TaskBackend> {
  readonly store: StageStore;
  readonly alias: string;
  /** The test's own backend on the alias, for enqueues and reads. */
  readonly backend: B;
  /** A plain client on the run's Redis, for reading keys (a Redis stage only). */
  readonly redis: Redis;
  /** The environment the alias's CLI processes get. */
  env(): Record<string, string>;
  /**
   * Starts a CLI process (a pool, say) on the alias, with `env` on top of the
   * alias's: of the fixture CLI, or of `cli` (another fixture entry, an app);
   * killed with its group after the test.
   */
  start(args: readonly string[], env?: Record<string, string>, cli?: string): RunningCli;
  /**
   * Runs one command on the alias to its end (of the fixture CLI, or of `cli`),
   * with `env` on top of the alias's: its exit code, stdout and stderr.
   */
  command(args: readonly string[], env?: Record<string, string>, cli?: string): Promise<CliOutcome>;
  /**
   * An app context of the test's own with ThreadmillModule on the alias and
   * `providers` (task listeners, say), without logs; the test closes it.
   */
  appContext(providers: Provider[]): Promise<INestApplicationContext>;
  /** How many processes listen to `feed` of the alias across processes now. */
  feedListeners(feed: StageFeed): Promise<number>;
  /** How many cancel requests of the alias wait for their pool to handle them. */
  pendingCancels(): Promise<number>;
}

interface StageState {
  alias: string;
  backend: TaskBackend;
  redis: Redis | null;
  schema: TestSchema | null;
}

/**
 * A CliStage made before each test of the describe block that calls this and
 * taken down after it (processes killed, the alias's keys or the test's
 * schema removed, clients closed), also when the test fails halfway. On
 * Postgres the CLI gets DATABASE_URL and the schema, and an empty REDIS_URL:
 * the sample prefers Redis when both are set.
 */
export function cliStage(queues?: readonly string[]): CliStage<RedisBackend>;
export function cliStage(queues: readonly string[] | undefined, store: StageStore): CliStage;
export function cliStage(
  queues: readonly string[] = ['default', 'emails'],
  store: StageStore = 'redis',
): CliStage {
  let current: StageState | null = null;
  const started: RunningCli[] = [];
  const now = (): StageState => {
    if (!current) throw new Error('cliStage: used outside a test');
    return current;
  };
  const config = (schema: TestSchema | null = now().schema): BackendConfig =>
    schema
      ? {
          backend: PostgresBackend,
          url: schema.url,
          queues: [...queues],
          options: { schema: schema.name },
        }
      : { backend: RedisBackend, url: testRedisUrl(), queues: [...queues] };
  beforeEach(async () => {
    const alias = testAlias();
    const schema = store === 'postgres' ? await createTestSchema() : null;
    const settings = config(schema);
    current = {
      alias,
      backend: new settings.backend(alias, settings, storeRules),
      redis: schema ? null : new Redis(testRedisUrl()),
      schema,
    };
  });
  afterEach(async () => {
    for (const cli of started.splice(0)) await cli.killGroup();
    const { alias, backend, redis, schema } = now();
    await backend.close();
    if (redis) {
      await removeAliasKeys(redis, alias);
      await redis.quit();
    }
    await schema?.drop();
    current = null;
  });
  const env = (): Record<string, string> => {
    const { alias, schema } = now();
    const storeEnv: Record<string, string> = schema
      ? {
          REDIS_URL: '',
          REDIS_CLUSTER_NODES: '',
          REDIS_SENTINELS: '',
          DATABASE_URL: schema.url,
          THREADMILL_PG_SCHEMA: schema.name,
        }
      : { REDIS_URL: testRedisUrl() };
    return {
      ...storeEnv,
      THREADMILL_ALIAS: alias,
      THREADMILL_MAINTENANCE_INTERVAL_MS: String(STAGE_MAINTENANCE_INTERVAL_MS),
    };
  };
  return {
    store,
    get alias() {
      return now().alias;
    },
    get backend() {
      return now().backend;
    },
    get redis() {
      const { redis } = now();
      if (!redis) throw new Error(`cliStage: a ${store} stage has no Redis client`);
      return redis;
    },
    env,
    start: (args, extra = {}, cli) => startCli(args, { ...env(), ...extra }, started, cli),
    command: (args, extra = {}, cli) => runCli(args, { ...env(), ...extra }, cli),
    appContext(providers) {
      @Module({
        imports: [ThreadmillModule.forRoot({ backends: { [now().alias]: config() } })],
        providers,
      })
      class StageAppModule {}
      return NestFactory.createApplicationContext(StageAppModule, { logger: false });
    },
    async feedListeners(feed) {
      const { alias, redis, schema } = now();
      if (redis) {
        const keys = new RedisKeys(alias);
        const channel = feed === 'finished' ? keys.finishedChannel : keys.liveChannel;
        const [, subscribers] = (await redis.pubsub('NUMSUB', channel)) as [string, number];
        return Number(subscribers);
      }
      // A listening process keeps a row per feed live; closing the feed deletes it.
      const [row] = await postgresQuery<{ n: number }>(
        schema!.url,
        `SELECT count(*)::int AS n FROM ${schema!.name}.threadmill_feed_listeners
         WHERE alias = $1 AND feed = $2`,
        [alias, feed],
      );
      return row.n;
    },
    async pendingCancels() {
      const { alias, redis, schema } = now();
      if (redis) {
        let pending = 0;
        let cursor = '0';
        do {
          const pattern = `${new RedisKeys(alias).cancelsPrefix}*`;
          const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          for (const key of keys) pending += await redis.zcard(key);
          cursor = next;
        } while (cursor !== '0');
        return pending;
      }
      const [row] = await postgresQuery<{ n: number }>(
        schema!.url,
        `SELECT count(*)::int AS n FROM ${schema!.name}.threadmill_cancels WHERE alias = $1`,
        [alias],
      );
      return row.n;
    },
  };
}
