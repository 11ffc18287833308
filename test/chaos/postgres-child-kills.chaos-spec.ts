import {
  childKillsTimeoutMs,
  KILL_EVERY_MS,
  runChildKills,
  SETTLE_TARGET_MS,
  type ChildKillsSize,
} from './child-kills-scenario';
import { postgresChaosScenario } from './postgres-chaos-harness';

// The child kills (child-kills-scenario.ts) on a Postgres cluster of this
// file's own. A smaller run than Redis's (each round trip costs more, and
// the suite's time counts): 1,000 tasks on 2 children, kills for 12 s.

const SIZE: ChildKillsSize = {
  tasks: 1000,
  processes: 2,
  killWindowMs: 12_000,
  drainLimitMs: 20_000,
  minKills: 3,
};

describe('chaos: kill -9 of worker children, on Postgres', () => {
  jest.setTimeout(childKillsTimeoutMs(SIZE));
  const scenario = postgresChaosScenario();

  it(`loses nothing, leaves nothing stuck and settles within ${SETTLE_TARGET_MS / 1000} s of the last kill while a child is killed every ${KILL_EVERY_MS} ms`, async () => {
    const stage = await scenario.stage('child-kills');
    await runChildKills({ ...stage, store: 'Postgres', startPool: scenario.startPool }, SIZE);
  });
});
