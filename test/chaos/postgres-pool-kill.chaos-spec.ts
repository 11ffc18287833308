import { runPoolKill, SETTLE_TARGET_MS } from './pool-kill-scenario';
import { postgresChaosScenario } from './postgres-chaos-harness';

// The whole-pool kill (pool-kill-scenario.ts) on a Postgres cluster of this
// file's own, whose dead pool also leaves connections that died with their
// processes. Half the Redis run's tasks: the server's round trips cost more,
// and the recovery is what is measured, not the backlog.

describe('chaos: kill -9 of a whole pool, on Postgres', () => {
  jest.setTimeout(120_000);
  const scenario = postgresChaosScenario();

  it(`a second pool recovers everything the killed pool held: all settled within ${SETTLE_TARGET_MS / 1000} s of the kill`, async () => {
    const stage = await scenario.stage('pool-kill');
    await runPoolKill({ ...stage, store: 'Postgres', startPool: scenario.startPool }, 1000);
  });
});
