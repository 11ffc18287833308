import { BlackholeRun, runBlackhole, type BlackholeSize } from './blackhole-scenario';
import { postgresChaosScenario, postgresPoolEnv } from './postgres-chaos-harness';

// The network blackhole (blackhole-scenario.ts) between a Postgres cluster
// of this file's own and a pool and a producer, for 15 s: the outage stays
// within the pool's heartbeat tolerance, and a statement that outlives the
// command timeout fails typed and its connection is dropped. A smaller run
// than Redis's: each round trip costs more, and the suite's time counts.

const SIZE: BlackholeSize = {
  processes: 2,
  threads: 4,
  taskMs: 200,
  callers: 6,
  backlog: 60,
  blackholeMs: 15_000,
  // The backend's default commandTimeout (postgres-backend-options.ts).
  commandTimeoutMs: 10_000,
};

describe('chaos: the network to Postgres is blackholed for 15 s', () => {
  jest.setTimeout(120_000);
  const held = new BlackholeRun();
  // Before the scenario's own cleanup (hooks run in the order declared): the callers end over
  // a path restored in case the test failed during the outage.
  afterAll(() => held.end());
  const scenario = postgresChaosScenario();

  it('fails nothing, loses nothing, runs nothing twice, and a retried enqueue stores its task once', async () => {
    const stage = await scenario.stage('blackhole');
    await runBlackhole(
      {
        ...stage,
        store: 'Postgres',
        startPool: scenario.startPool,
        storePort: scenario.server().port,
        through(port) {
          const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
          return {
            env: postgresPoolEnv(url, stage.schema, stage.alias),
            producer: stage.backendAt(url),
          };
        },
      },
      SIZE,
      held,
    );
  });
});
