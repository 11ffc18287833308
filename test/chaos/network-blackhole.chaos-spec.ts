import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { REDIS_BACKEND_DEFAULTS } from '../../lib/backends/redis/redis-backend-options.interface';
import { storeRules } from '../../lib/lifecycle/store-rules';
import { BlackholeRun, runBlackhole, type BlackholeSize } from './blackhole-scenario';
import { CHAOS_QUEUES, chaosScenario } from './chaos-harness';

// The network blackhole (blackhole-scenario.ts) between a Redis of this
// file's own and a pool and a producer, for 20 s. 10 callers enqueue about
// 90 tasks/s together, over twice what 16 slots of 400 ms run.

const SIZE: BlackholeSize = {
  processes: 2,
  threads: 8,
  taskMs: 400,
  callers: 10,
  backlog: 100,
  blackholeMs: 20_000,
  commandTimeoutMs: REDIS_BACKEND_DEFAULTS.commandTimeout,
};

describe('chaos: the network to Redis is blackholed for 20 s', () => {
  jest.setTimeout(90_000);
  const held = new BlackholeRun();
  let producer: RedisBackend | undefined;
  // Before the scenario's own cleanup (hooks run in the order declared), which stops
  // Redis: the callers end and the producer says QUIT, over a path restored in case
  // the test failed during the outage.
  afterAll(() => held.end(async () => producer?.close()));
  const scenario = chaosScenario();

  it('fails nothing, loses nothing, runs nothing twice, and a retried enqueue stores its task once', async () => {
    const stage = scenario.stage('network-blackhole');
    await runBlackhole(
      {
        ...stage,
        store: 'Redis',
        startPool: scenario.startPool,
        storePort: scenario.server().port,
        through(port) {
          const url = `redis://127.0.0.1:${port}`;
          producer = new RedisBackend(
            stage.alias,
            { backend: RedisBackend, url, queues: CHAOS_QUEUES },
            storeRules,
          );
          return { env: { ...stage.env, REDIS_URL: url }, producer };
        },
      },
      SIZE,
      held,
    );
  });
});
