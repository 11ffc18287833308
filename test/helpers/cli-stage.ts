import { Module, type INestApplicationContext, type Provider } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import Redis from 'ioredis';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { ThreadmillModule } from '../../lib/threadmill.module';
import { runCli, startCli, type CliOutcome, type RunningCli } from './cli-process';
import { removeAliasKeys } from './redis-cleanup';
import { testAlias } from './test-alias';
import { testRedisUrl } from './test-redis-url';
import { storeRules } from '../../lib/lifecycle/store-rules';

/** How often the stage's pools run their maintenance pass (ms): short, so recoveries show soon. */
export const STAGE_MAINTENANCE_INTERVAL_MS = 1000;

/** One test's own alias on the run's Redis, and the fixture CLI pointed at it. */
export interface CliStage {
  readonly alias: string;
  /** The test's own backend on the alias, for enqueues and reads. */
  readonly backend: RedisBackend;
  /** A plain client on the run's Redis, for reading keys. */
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
}

/**
 * A CliStage made before each test of the describe block that calls this and
 * taken down after it (processes killed, the alias's keys removed, clients
 * closed), also when the test fails halfway.
 */
export function cliStage(queues: readonly string[] = ['default', 'emails']): CliStage {
  let current: { alias: string; backend: RedisBackend; redis: Redis } | null = null;
  const started: RunningCli[] = [];
  const now = () => {
    if (!current) throw new Error('cliStage: used outside a test');
    return current;
  };
  beforeEach(() => {
    const alias = testAlias();
    current = {
      alias,
      backend: new RedisBackend(
        alias,
        {
          backend: RedisBackend,
          url: testRedisUrl(),
          queues: [...queues],
        },
        storeRules,
      ),
      redis: new Redis(testRedisUrl()),
    };
  });
  afterEach(async () => {
    for (const cli of started.splice(0)) await cli.killGroup();
    const { alias, backend, redis } = now();
    await backend.close();
    await removeAliasKeys(redis, alias);
    await redis.quit();
    current = null;
  });
  const env = (): Record<string, string> => ({
    REDIS_URL: testRedisUrl(),
    THREADMILL_ALIAS: now().alias,
    THREADMILL_MAINTENANCE_INTERVAL_MS: String(STAGE_MAINTENANCE_INTERVAL_MS),
  });
  return {
    get alias() {
      return now().alias;
    },
    get backend() {
      return now().backend;
    },
    get redis() {
      return now().redis;
    },
    env,
    start: (args, extra = {}, cli) => startCli(args, { ...env(), ...extra }, started, cli),
    command: (args, extra = {}, cli) => runCli(args, { ...env(), ...extra }, cli),
    appContext(providers) {
      @Module({
        imports: [
          ThreadmillModule.forRoot({
            backends: {
              [now().alias]: { backend: RedisBackend, url: testRedisUrl(), queues: [...queues] },
            },
          }),
        ],
        providers,
      })
      class StageAppModule {}
      return NestFactory.createApplicationContext(StageAppModule, { logger: false });
    },
  };
}
