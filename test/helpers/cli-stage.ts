import { execFile } from 'node:child_process';
import { join } from 'node:path';

import Redis from 'ioredis';

import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { SAMPLE_DIST } from '../setup/build-sample-cli';
import { startCli, type RunningCli } from './cli-process';
import { removeAliasKeys } from './redis-cleanup';
import { testAlias } from './test-alias';
import { testRedisUrl } from './test-redis-url';

const ROOT = join(__dirname, '..', '..');
const CLI = join(SAMPLE_DIST, 'test', 'fixtures', 'worker', 'worker-main.js');

/** One test's own alias on the run's Redis, and the fixture CLI pointed at it. */
export interface CliStage {
  readonly alias: string;
  /** The test's own backend on the alias, for enqueues and reads. */
  readonly backend: RedisBackend;
  /** A plain client on the run's Redis, for reading keys. */
  readonly redis: Redis;
  /** The environment the alias's CLI processes get. */
  env(): Record<string, string>;
  /** Starts a CLI process (a pool, say) on the alias; killed with its group after the test. */
  start(args: readonly string[]): RunningCli;
  /** Runs one CLI command on the alias to its end: its exit code, stdout and stderr. */
  command(
    args: readonly string[],
  ): Promise<{ code: number | null; stdout: string; stderr: string }>;
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
      backend: new RedisBackend(alias, {
        backend: RedisBackend,
        url: testRedisUrl(),
        queues: [...queues],
      }),
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
    THREADMILL_MAINTENANCE_INTERVAL_MS: '1000',
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
    start: (args) => startCli(args, env(), started),
    command: (args) =>
      new Promise((resolve) => {
        execFile(
          process.execPath,
          [CLI, ...args],
          { cwd: ROOT, env: { ...process.env, ...env(), NO_COLOR: '1' } },
          (error, stdout, stderr) => {
            const code = error ? ((error as { code?: number }).code ?? null) : 0;
            resolve({ code, stdout, stderr });
          },
        );
      }),
  };
}
