import type { RunningCli } from '../helpers/cli-process';
import { chaosScenario } from './chaos-harness';
import { DEFER_MS, runClockSkew, SKEW_MS } from './clock-skew-scenario';

// The clock-skew scenario (clock-skew-scenario.ts) on a Redis of its own,
// which runs on this machine, so its clock is this process's.

describe('chaos: two pools whose clocks are 20 minutes apart', () => {
  jest.setTimeout(90_000);
  const scenario = chaosScenario();
  const started: RunningCli[] = [];
  afterAll(async () => {
    for (const cli of started.splice(0)) await cli.killGroup();
  });

  it('lose nothing, run nothing twice, fail nothing, and run nothing early', async () => {
    const stage = scenario.stage('clock-skew');
    const { delayedIds, delayedFrom } = await runClockSkew({
      ...stage,
      store: 'Redis',
      startPool: (args, env) => scenario.startPool(args, env),
      started,
    });
    // The stored runAfter is the enqueuer's own estimate, on its clock 10 minutes behind.
    for (const id of delayedIds) {
      const estimate = (await stage.backend.tasks.getResult(id)).task.runAfter!.getTime();
      expect(estimate - (delayedFrom - SKEW_MS)).toBeGreaterThanOrEqual(DEFER_MS);
      expect(estimate - (delayedFrom - SKEW_MS)).toBeLessThan(DEFER_MS + 30_000);
    }
  });
});
