import { chaosScenario } from './chaos-harness';
import { runPoolKill, SETTLE_TARGET_MS } from './pool-kill-scenario';

// The whole-pool kill (pool-kill-scenario.ts) on a Redis of this file's own.

describe('chaos: kill -9 of a whole pool', () => {
  jest.setTimeout(120_000);
  const scenario = chaosScenario();

  it(`a second pool recovers everything the killed pool held: all settled within ${SETTLE_TARGET_MS / 1000} s of the kill`, async () => {
    const stage = scenario.stage('pool-kill');
    await runPoolKill({ ...stage, store: 'Redis', startPool: scenario.startPool }, 2000);
  });
});
