import { Logger } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';

import { newRecord } from '../../../../lib/backend-kit';
import { PostgresBackend } from '../../../../lib/backends/postgres/postgres.backend';
import { PostgresClock, SERVER_MS } from '../../../../lib/backends/postgres/postgres-clock';
import { runMaintenancePass } from '../../../../lib/lifecycle/maintenance-pass';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { atWallClock } from '../../../helpers/clock';
import { createTestSchema, type TestSchema } from '../../../helpers/postgres-schema';
import { testAlias } from '../../../helpers/test-alias';
import { testPostgresUrl } from '../../../helpers/test-postgres-url';

/** How far off this process's wall clock is set (jest's fake Date; timers and performance stay real). */
const SKEW_MS = 10 * 60_000;
const LEASE_TTL_MS = 60_000;
const DEFER_MS = 5000;

describe('PostgresBackend keeps time on the server clock', () => {
  let admin: Client;
  let created: TestSchema;
  const backends: PostgresBackend[] = [];

  /** The server's clock now (ms), on the test's own connection (bigint comes as text). */
  const serverMs = async (): Promise<number> =>
    Number((await admin.query<{ ms: string }>(SERVER_MS)).rows[0].ms);

  beforeAll(async () => {
    admin = new Client({ connectionString: testPostgresUrl() });
    await admin.connect();
  });

  afterAll(async () => {
    await admin.end();
  });

  beforeEach(async () => {
    created = await createTestSchema();
  });

  afterEach(async () => {
    for (const backend of backends.splice(0)) await backend.close();
    await created.drop();
  });

  it('reads the server clock within half its round trip, whatever the wall clock says', async () => {
    const clock = new PostgresClock('clock', new Logger('clock'), serverMs);
    await atWallClock(Date.now() - SKEW_MS, async () => {
      await clock.measure();
      for (let check = 0; check < 5; check++) {
        const sent = performance.now();
        const server = await serverMs();
        const received = performance.now();
        // Whole ms on both sides: one more of rounding.
        expect(server).toBeGreaterThanOrEqual(clock.at(sent) - clock.errorMs - 1);
        expect(server).toBeLessThanOrEqual(clock.at(received) + clock.errorMs + 1);
      }
    });
    expect(clock.errorMs).toBeLessThan(50);
  });

  it("times a lease and a runAfter of a host 10 minutes behind on the server's clock, and a pass 10 minutes ahead ends neither early", async () => {
    const alias = testAlias();
    const backend = new PostgresBackend(
      alias,
      {
        backend: PostgresBackend,
        url: testPostgresUrl(),
        options: { schema: created.name, leaseTtl: LEASE_TTL_MS },
      },
      storeRules,
    );
    backends.push(backend);
    const ready = newRecord(alias);
    const { deferred, leased } = await atWallClock(Date.now() - SKEW_MS, async () => {
      const deferredRecord = newRecord(alias, { runAfter: new Date(Date.now() + DEFER_MS) });
      await backend.tasks.enqueueMany([ready, deferredRecord]);
      const [lease] = await backend.leases.acquire(['default'], {
        workerId: 'behind:1-0',
        timeoutMs: 0,
      });
      return { deferred: deferredRecord, leased: lease };
    });
    expect(leased.id).toBe(ready.id);
    // The lease is stamped by the server's clock (this machine's), not the caller's.
    expect(Math.abs(leased.lastAttemptedAt!.getTime() - Date.now())).toBeLessThan(5000);
    const { rows } = await admin.query<{ id: string; state: string; left: string }>(
      `SELECT id, state, coalesce(run_at, lease_until) - $2::bigint AS left
         FROM ${created.name}.threadmill_tasks WHERE alias = $1 ORDER BY id`,
      [alias, await serverMs()],
    );
    const left = new Map(rows.map((row) => [row.id, Number(row.left)]));
    expect(left.get(deferred.id)).toBeGreaterThan(DEFER_MS - 2000);
    expect(left.get(deferred.id)).toBeLessThanOrEqual(DEFER_MS);
    expect(left.get(ready.id)).toBeGreaterThan(LEASE_TTL_MS - 2000);
    expect(left.get(ready.id)).toBeLessThanOrEqual(LEASE_TTL_MS);

    // A pass on a host 10 minutes ahead: nothing due yet, no lease over.
    const pass = await atWallClock(Date.now() + SKEW_MS, () => runMaintenancePass(backend));
    expect(pass).toMatchObject({ promoted: 0, reaped: 0, recovered: 0, failedSteps: [] });
    const telemetry = await backend.reads.telemetry(1000);
    expect(telemetry.queues.default.counts).toMatchObject({ running: 1, deferred: 1 });
  });
});
