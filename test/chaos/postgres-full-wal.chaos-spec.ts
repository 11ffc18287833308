import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { PostgresBackend } from '../../lib/backends/postgres/postgres.backend';
import { BackendUnavailableError } from '../../lib/core/errors/backend-unavailable.error';
import { EnqueueOutcomeUnknownError } from '../../lib/core/errors/enqueue-outcome-unknown.error';
import { StoreFullError } from '../../lib/core/errors/store-full.error';
import { storeRules } from '../../lib/lifecycle/store-rules';
import { createTestSchema } from '../helpers/postgres-schema';
import { startPostgresServer, type PostgresServerHandle } from '../helpers/postgres-server';
import { SmallDisk } from '../helpers/small-disk';
import { testAlias } from '../helpers/test-alias';
import { waitFor } from '../helpers/wait-for';
import {
  CHAOS_QUEUES,
  audit,
  auditLine,
  chaosRecord,
  report,
  settled,
  startPool,
  type RunningPool,
} from './chaos-harness';
import { postgresQuery } from '../helpers/postgres-query';
import { postgresPoolEnv } from './postgres-chaos-harness';

// The disk under Postgres's WAL fills up under a running pool and a busy
// producer. pg_wal lives on a small file system of its own (a tmpfs:
// mounting one needs root), in 1 MB segments that are never recycled, so
// the next segment needs new space: the server cannot write its WAL, PANICs
// and stays down until there is room, as a real server does. The filler
// goes after a while and the server is started again (what an operator
// does). Enqueues must fail typed, nothing acknowledged may be lost or run
// twice, and the pool must carry on without being restarted.

const DISK_BYTES = 32 * 1024 * 1024;
/** Enqueued at least: the producer goes on until the server is back. */
const TASKS = 600;
const TASK_MS = 20;
/** How long the disk stays full once the server is down. */
const FULL_MS = 3000;
const LEASE_TTL_MS = 15_000;

describe('chaos: the disk under Postgres WAL fills up under a running pool', () => {
  jest.setTimeout(150_000);
  let disk: SmallDisk | undefined;
  let server: PostgresServerHandle | undefined;
  let backend: PostgresBackend | undefined;
  let journalDir = '';
  const pools: RunningPool[] = [];
  afterAll(async () => {
    for (const pool of pools.splice(0)) await pool.killGroup();
    await backend?.close();
    await server?.remove();
    disk?.remove();
    if (journalDir) rmSync(journalDir, { recursive: true, force: true });
  });

  it('fails enqueues typed while the WAL has no room, loses nothing, and recovers once space returns', async () => {
    disk = new SmallDisk(DISK_BYTES);
    // initdb runs as `postgres` when this process is root, and makes the WAL folder.
    if (process.getuid?.() === 0) {
      const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString());
      chownSync(disk.dir, id('-u'), id('-g'));
    }
    server = await startPostgresServer({
      wal: { dir: join(disk.dir, 'wal'), segmentMb: 1 },
      settings: { wal_recycle: 'off', min_wal_size: '2MB', max_wal_size: '4MB' },
    });
    journalDir = mkdtempSync(join(tmpdir(), 'threadmill-chaos-'));
    const journal = join(journalDir, 'full-wal.log');
    const schema = await createTestSchema(server.url);
    const alias = testAlias();
    backend = new PostgresBackend(
      alias,
      {
        backend: PostgresBackend,
        url: server.url,
        queues: CHAOS_QUEUES,
        options: { schema: schema.name },
      },
      storeRules,
    );
    const pool = startPool(
      ['--alias', alias, '--processes', '2', '--threads', '4'],
      {
        ...postgresPoolEnv(server.url, schema.name, alias),
        THREADMILL_MAINTENANCE_INTERVAL_MS: '500',
        THREADMILL_LEASE_TTL_MS: String(LEASE_TTL_MS),
      },
      pools,
    );
    await waitFor(() => pool.liveChildren().length === 2, {
      timeoutMs: 60_000,
      what: 'two ready children',
    });
    const children = pool.liveChildren();

    const acknowledged: string[] = [];
    const unknown: string[] = [];
    const failures: { name: string; message: string }[] = [];
    let outage: Promise<void> | null = null;
    let downMs = 0;
    const fillAndRecover = async (): Promise<void> => {
      const filler = disk!.fillUp();
      // The server is down once a WAL write found no room: it PANICs at the next new segment.
      const fullAt = Date.now();
      await waitFor(
        async () => {
          await postgresQuery(server!.url, 'SELECT pg_switch_wal()').catch(() => undefined);
          return postgresQuery(server!.url, 'SELECT 1').then(
            () => false,
            () => true,
          );
        },
        { timeoutMs: 30_000, intervalMs: 100, what: 'the server to stop on a full WAL disk' },
      );
      // The outage's length, not a wait for an event.
      await new Promise((resolve) => setTimeout(resolve, FULL_MS));
      rmSync(filler);
      // Stopped, or still retrying its recovery: started again as an operator would.
      await server!.stop({ mode: 'immediate' }).catch(() => undefined);
      await server!.start();
      downMs = Date.now() - fullAt;
    };
    // At least TASKS, and on until the server is back: enqueues meet the whole outage.
    let back = false;
    for (let i = 0; i < TASKS * 40 && (acknowledged.length < TASKS || !back); i++) {
      if (acknowledged.length === TASKS / 4 && outage === null)
        outage = fillAndRecover().finally(() => {
          back = true;
        });
      const record = chaosRecord(alias, journal, TASK_MS);
      try {
        await backend.tasks.enqueue(record);
        acknowledged.push(record.id);
      } catch (error) {
        if (error instanceof EnqueueOutcomeUnknownError) unknown.push(...error.ids);
        const { name, message } = error as Error;
        failures.push({ name, message });
      }
      // A producer's pace (and, after a refusal, a real producer's pause before it tries again).
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await outage;
    const settledInTime = await settled(backend, LEASE_TTL_MS + 45_000);
    const result = await audit(backend, acknowledged, journal);
    const log = pool.output();
    report(
      auditLine(
        `Postgres: its WAL's disk (${DISK_BYTES / 1024 / 1024} MB tmpfs) full, the server down ${downMs} ms`,
        result,
        `${failures.length} enqueue(s) failed (${[...new Set(failures.map((f) => f.name))].join(', ')}; ` +
          `${unknown.length} with the outcome unknown)`,
      ),
    );
    if (!settledInTime || result.stuck.length > 0) report(log.slice(-6000));

    expect(failures.length).toBeGreaterThan(0);
    const typed = [
      BackendUnavailableError.name,
      EnqueueOutcomeUnknownError.name,
      StoreFullError.name,
    ];
    expect(failures.filter((f) => !typed.includes(f.name))).toEqual([]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(TASKS);
    expect(result.lost).toEqual([]);
    expect(result.stuck).toEqual([]);
    expect(result.duplicates).toEqual([]);
    expect(result.successWithoutRun).toEqual([]);
    // Nothing failed but a lease whose holder is unknown (a reply lost with the crash).
    expect(
      Object.keys(result.failed).filter(
        (r) => r !== 'AcknowledgementTimeout' && r !== 'WorkerLost',
      ),
    ).toEqual([]);
    // A task whose enqueue lost its reply was stored and settled, or never stored.
    const unsure = await audit(backend, unknown, journal);
    expect(unsure.stuck).toEqual([]);
    expect(unsure.duplicates).toEqual([]);
    expect(pool.liveChildren()).toEqual(children);
    expect(log).not.toMatch(/Worker child \d+ (exited|died)/);
    pool.process.kill('SIGTERM');
    expect((await pool.exited).code).toBe(0);
  });
});
