import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { PostgresBackend } from '../../lib/backends/postgres/postgres.backend';
import { storeRules } from '../../lib/lifecycle/store-rules';
import type { RunningCli } from '../helpers/cli-process';
import { createTestSchema, type TestSchema } from '../helpers/postgres-schema';
import { testAlias } from '../helpers/test-alias';
import { CHAOS_QUEUES, startPool } from './chaos-harness';
import { runClockSkew } from './clock-skew-scenario';

// The clock-skew scenario (clock-skew-scenario.ts) with the sample's pools
// on the run's Postgres, in a schema of this test's own. Postgres keeps the
// real time, this process's.

describe('chaos: two pools on Postgres whose clocks are 20 minutes apart', () => {
  jest.setTimeout(90_000);
  const started: RunningCli[] = [];
  let schema: TestSchema | undefined;
  let backend: PostgresBackend | undefined;
  let journalDir = '';

  beforeAll(async () => {
    schema = await createTestSchema();
    journalDir = mkdtempSync(join(tmpdir(), 'threadmill-chaos-'));
  });

  afterAll(async () => {
    for (const cli of started.splice(0)) await cli.killGroup();
    await backend?.close();
    await schema?.drop();
    if (journalDir) rmSync(journalDir, { recursive: true, force: true });
  });

  it('lose nothing, run nothing twice, end no lease early, and run nothing early', async () => {
    const alias = testAlias();
    const { name, url } = schema!;
    backend = new PostgresBackend(
      alias,
      { backend: PostgresBackend, url, queues: CHAOS_QUEUES, options: { schema: name } },
      storeRules,
    );
    await runClockSkew({
      store: 'Postgres',
      alias,
      backend,
      journal: join(journalDir, 'postgres-clock-skew.log'),
      // The sample's store is Postgres only when the environment names no Redis.
      env: {
        DATABASE_URL: url,
        THREADMILL_PG_SCHEMA: name,
        THREADMILL_ALIAS: alias,
        REDIS_URL: '',
        REDIS_CLUSTER_NODES: '',
        REDIS_SENTINELS: '',
      },
      startPool: (args, env) => startPool(args, env, started),
      started,
    });
  });
});
