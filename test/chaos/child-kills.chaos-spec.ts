import { chaosScenario } from './chaos-harness';
import {
  childKillsTimeoutMs,
  KILL_EVERY_MS,
  runChildKills,
  SETTLE_TARGET_MS,
  type ChildKillsSize,
} from './child-kills-scenario';

// The child kills (child-kills-scenario.ts) on a Redis of this file's own:
// 2,000 tasks of 50 ms on 3 children of 8 slots, about 4 s of work, so the
// kills every 200 ms land on children with tasks in flight.

const SIZE: ChildKillsSize = {
  tasks: 2000,
  processes: 3,
  killWindowMs: 30_000,
  drainLimitMs: 40_000,
  minKills: 5,
};

describe('chaos: kill -9 of worker children', () => {
  jest.setTimeout(childKillsTimeoutMs(SIZE));
  const scenario = chaosScenario();

  it(`loses nothing, leaves nothing stuck and settles within ${SETTLE_TARGET_MS / 1000} s of the last kill while a child is killed every ${KILL_EVERY_MS} ms`, async () => {
    const stage = scenario.stage('child-kills');
    await runChildKills({ ...stage, store: 'Redis', startPool: scenario.startPool }, SIZE);
  });
});
