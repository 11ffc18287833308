import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from 'pg';

import { POSTGRES_SCHEMA_VERSION } from '../../lib/backends/postgres/postgres-migrations';
import { SQLITE_SCHEMA_VERSION } from '../../lib/backends/sqlite/sqlite-migrations';
import { runCli } from '../helpers/cli-process';
import { createTestSchema, type TestSchema } from '../helpers/postgres-schema';
import { testAlias } from '../helpers/test-alias';
import { testRedisUrl } from '../helpers/test-redis-url';

// `threadmill migrate` on the real CLI: a deploy migrates a private Postgres
// schema before the apps start, whose backend (migrate: false) refuses a
// schema behind it and names the command.

describe('threadmill migrate (e2e)', () => {
  jest.setTimeout(60_000);
  let created: TestSchema;
  let alias: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    created = await createTestSchema();
    alias = testAlias();
    env = {
      DATABASE_URL: created.url,
      THREADMILL_PG_SCHEMA: created.name,
      THREADMILL_ALIAS: alias,
      REDIS_URL: '',
      REDIS_CLUSTER_NODES: '',
      REDIS_SENTINELS: '',
      THREADMILL_PG_MIGRATE: 'false',
    };
  });

  afterEach(async () => {
    await created.drop();
  });

  const versions = async (): Promise<number[]> => {
    const client = new Client({ connectionString: created.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>(
        `SELECT version FROM ${created.name}.threadmill_migrations ORDER BY version`,
      );
      return rows.map((row) => row.version);
    } finally {
      await client.end();
    }
  };

  it('refuses to start on a schema behind it, migrates it, and then the commands work', async () => {
    const refused = await runCli(['queues', 'list'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `the Postgres schema "${created.name}" is at version 0, and this release needs version ${POSTGRES_SCHEMA_VERSION}`,
    );
    expect(refused.stderr).toContain(`run \`threadmill migrate --alias "${alias}"\``);

    const migrated = await runCli(['migrate'], env);
    expect(migrated).toMatchObject({ code: 0, stderr: '' });
    expect(migrated.stdout).toBe(
      `Backend "${alias}": schema "${created.name}" of ${created.url} migrated from version 0 to ${POSTGRES_SCHEMA_VERSION}.\n`,
    );
    expect(await versions()).toEqual(
      Array.from({ length: POSTGRES_SCHEMA_VERSION }, (_, i) => i + 1),
    );

    const again = await runCli(['migrate', '--alias', alias], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`is at version ${POSTGRES_SCHEMA_VERSION}; nothing to migrate.`);

    const listed = await runCli(['queues', 'list'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('default');
  });

  it('reports the migration a backend that migrates at start did', async () => {
    const migrated = await runCli(['migrate'], { ...env, THREADMILL_PG_MIGRATE: 'true' });
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain(`migrated from version 0 to ${POSTGRES_SCHEMA_VERSION}.`);
  });

  it('refuses an argument, or an alias not configured, as a usage error (exit 2)', async () => {
    const extra = await runCli(['migrate', 'now'], env);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('error: migrate: unexpected argument "now"');
    const unknown = await runCli(['migrate', '--alias', 'nope'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('"nope"');
    expect(await versions().catch(() => [])).toEqual([]);
  });

  it('says a Redis store has nothing to migrate, and migrates a SQLite file as it opens it', async () => {
    const onRedis = await runCli(['migrate'], {
      THREADMILL_ALIAS: alias,
      REDIS_URL: testRedisUrl(),
    });
    expect(onRedis).toMatchObject({
      code: 0,
      stdout: `Backend "${alias}" (RedisBackend) keeps no schema; nothing to migrate.\n`,
    });
    const dir = mkdtempSync(join(tmpdir(), 'threadmill-migrate-'));
    try {
      const file = join(dir, 'tasks.db');
      const sqliteEnv = {
        THREADMILL_ALIAS: alias,
        REDIS_URL: '',
        DATABASE_URL: '',
        THREADMILL_SQLITE_FILE: file,
      };
      const first = await runCli(['migrate'], sqliteEnv);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(
        `file ${file} migrated from version 0 to ${SQLITE_SCHEMA_VERSION}.`,
      );
      const second = await runCli(['migrate'], sqliteEnv);
      expect(second.stdout).toContain(
        `is at version ${SQLITE_SCHEMA_VERSION}; nothing to migrate.`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
