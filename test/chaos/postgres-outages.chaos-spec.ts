import { postgresQuery } from '../helpers/postgres-query';
import { postgresChaosScenario } from './postgres-chaos-harness';
import { runOutage } from './outage-scenario';

// The outages (outage-scenario.ts) on a Postgres cluster of this file's own:
// the server crashes (`pg_ctl stop -m immediate`, which quits without a
// checkpoint, so the restart recovers from the WAL) and comes back on the
// same port, and every connection to it is ended with pg_terminate_backend,
// again and again.

/** How long Postgres stays down in the crash scenario. */
const OUTAGE_MS = 2500;
/** pg_terminate_backend rounds, and the time between them. */
const TERMINATIONS = 5;
const TERMINATE_EVERY_MS = 400;

describe('chaos: Postgres goes away under a running pool', () => {
  jest.setTimeout(120_000);
  const scenario = postgresChaosScenario();

  it('a crash (pg_ctl stop -m immediate) and restart loses no acknowledged enqueue, and the pool carries on', async () => {
    const stage = await scenario.stage('crash');
    const server = scenario.server();
    await runOutage(
      { ...stage, store: 'Postgres', startPool: scenario.startPool },
      {
        name: 'crashed (pg_ctl stop -m immediate) and restarted mid-run',
        failsEnqueues: true,
        async disrupt() {
          const stoppedAt = Date.now();
          await server.stop({ mode: 'immediate' });
          // The outage's length, not a wait for an event: enqueues, acquires and beats fail meanwhile.
          await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
          await server.start();
          return `Postgres was down ${Date.now() - stoppedAt} ms`;
        },
      },
    );
  });

  it(`pg_terminate_backend of every connection, ${TERMINATIONS} times: consumers and producer resume`, async () => {
    const stage = await scenario.stage('terminate');
    const { url } = scenario.server();
    const terminated: number[] = [];
    await runOutage(
      { ...stage, store: 'Postgres', startPool: scenario.startPool },
      {
        name: `pg_terminate_backend of every connection, ${TERMINATIONS} rounds ${TERMINATE_EVERY_MS} ms apart`,
        failsEnqueues: false,
        async disrupt() {
          for (let round = 0; round < TERMINATIONS; round++) {
            const rows = await postgresQuery<{ ended: boolean }>(
              url,
              `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
               WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
            );
            terminated.push(rows.filter((row) => row.ended).length);
            await new Promise((resolve) => setTimeout(resolve, TERMINATE_EVERY_MS));
          }
          return `${terminated.join('+')} connections ended`;
        },
      },
    );
    // The producer's, the pool parent's and both children's connections at first; then
    // whatever was made again since (a connection is made again only once it is needed).
    expect(terminated[0]).toBeGreaterThanOrEqual(4);
    expect(Math.min(...terminated)).toBeGreaterThanOrEqual(1);
  });
});
