import { execFileSync } from 'node:child_process';
import { chownSync, rmSync } from 'node:fs';

import { StoreFullError } from '../../lib/core/errors/store-full.error';
import { SmallDisk } from '../helpers/small-disk';
import { waitFor } from '../helpers/wait-for';
import { audit, auditLine, chaosRecord, report, settled } from './chaos-harness';
import { postgresQuery } from '../helpers/postgres-query';
import { postgresChaosScenario } from './postgres-chaos-harness';

// The disk under Postgres's tables fills up under a running pool and a busy
// producer. The tables live in a tablespace on a small file system of their
// own (a tmpfs: mounting one needs root, as initdb's `postgres` user is made
// to run the server), the default tablespace of the database; the WAL stays
// in the data directory, so the server itself runs on and refuses what does
// not fit (53100, "could not extend file"). A filler file takes the free
// space for a while, then goes. Enqueues must be refused typed
// (StoreFullError, nothing stored), the pool must carry on without being
// restarted (outcomes it could not store are stored once there is room), and
// nothing may be lost or run twice.

const DISK_BYTES = 64 * 1024 * 1024;
const FULL_MS = 5000;
const TASKS = 600;
const TASK_MS = 20;
const TABLESPACE = 'threadmill_small';

/** The uid and gid of the user the private cluster runs as (`postgres` when this process is root). */
function serverOwner(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

describe('chaos: the disk under Postgres fills up under a running pool', () => {
  jest.setTimeout(120_000);
  const scenario = postgresChaosScenario();
  let disk: SmallDisk | undefined;
  // After the scenario's cleanup (hooks run in the order declared): the cluster is gone first.
  afterAll(() => disk?.remove());

  it('refuses enqueues with StoreFullError while it is full, loses nothing, and the pool carries on', async () => {
    disk = new SmallDisk(DISK_BYTES);
    const owner = serverOwner();
    if (owner) chownSync(disk.dir, owner.uid, owner.gid);
    const { url } = scenario.server();
    await postgresQuery(url, `CREATE TABLESPACE ${TABLESPACE} LOCATION '${disk.dir}'`);
    // Every table and index a backend's migration makes from now on goes on the small disk.
    await postgresQuery(url, `ALTER DATABASE postgres SET default_tablespace = ${TABLESPACE}`);
    const stage = await scenario.stage('full-disk');
    const { alias, backend, journal } = stage;
    await backend.reads.telemetry(1000);
    const [placed] = await postgresQuery<{ spcname: string }>(
      url,
      `SELECT t.spcname FROM pg_class c JOIN pg_tablespace t ON t.oid = c.reltablespace
       JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relname = 'threadmill_tasks'`,
      [stage.schema],
    );
    expect(placed?.spcname).toBe(TABLESPACE);

    const pool = scenario.startPool(['--alias', alias, '--processes', '2', '--threads', '4'], {
      ...stage.env,
      THREADMILL_MAINTENANCE_INTERVAL_MS: '500',
    });
    await waitFor(() => pool.liveChildren().length === 2, {
      timeoutMs: 60_000,
      what: 'two ready children',
    });
    const children = pool.liveChildren();

    const acknowledged: string[] = [];
    const refusals: { name: string; message: string }[] = [];
    let filler: string | null = null;
    let fullMs = 0;
    let doneWhileFull = 0;
    for (let i = 0; i < TASKS * 20 && acknowledged.length < TASKS; i++) {
      if (acknowledged.length === TASKS / 4 && filler === null) {
        filler = disk.fillUp();
        fullMs = Date.now();
        const before = (await backend.reads.telemetry(60_000)).queues.default.counts.successful;
        setTimeout(() => {
          void backend.reads.telemetry(60_000).then((t) => {
            doneWhileFull = t.queues.default.counts.successful - before;
            rmSync(filler as string);
            fullMs = Date.now() - fullMs;
          });
        }, FULL_MS);
      }
      const record = chaosRecord(alias, journal, TASK_MS);
      try {
        await backend.tasks.enqueue(record);
        acknowledged.push(record.id);
      } catch (error) {
        const { name, message } = error as Error;
        refusals.push({ name, message });
        // A refused call is tried again by a real producer after a pause, not in a hot loop.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const settledInTime = await settled(backend, 60_000);
    const result = await audit(backend, acknowledged, journal);
    const log = pool.output();
    report(
      auditLine(
        `Postgres: its tablespace's disk (${DISK_BYTES / 1024 / 1024} MB tmpfs) full for ${fullMs} ms under a busy pool`,
        result,
        `${refusals.length} enqueue(s) refused (${[...new Set(refusals.map((r) => r.name))].join(', ')}); ` +
          `${doneWhileFull} tasks stored SUCCESSFUL while full; ` +
          `${log.match(/StoreFullError|disk of Postgres .* is full/g)?.length ?? 0} refusals in the pool's log`,
      ),
    );
    if (!settledInTime || result.stuck.length > 0) report(log.slice(-6000));

    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.filter((r) => r.name !== StoreFullError.name)).toEqual([]);
    expect(acknowledged.length).toBe(TASKS);
    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.failed).toEqual({});
    expect(result.duplicates).toEqual([]);
    expect(result.successWithoutRun).toEqual([]);
    expect(pool.liveChildren()).toEqual(children);
    expect(log).not.toMatch(/Worker child \d+ (exited|died)/);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });
});
