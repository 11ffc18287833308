import { randomBytes } from 'node:crypto';

import { Client } from 'pg';

import { describeBackendContract } from '../../../../lib/backend-kit';
import { PostgresBackend } from '../../../../lib/backends/postgres/postgres.backend';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { testPostgresUrl } from '../../../helpers/test-postgres-url';

// One plain client for cleanup only; every backend opens its own connections.
let admin: Client;

beforeAll(async () => {
  admin = new Client({ connectionString: testPostgresUrl() });
  await admin.connect();
});

afterAll(async () => {
  await admin.end();
});

// Jest's own functions, passed as any other runner's would be.
const runner = { describe, it, expect, beforeEach, afterEach };

// A schema of its own per test, dropped afterwards: nothing one test stores can leak into another.
describeBackendContract(runner, 'PostgresBackend', async (settings) => {
  const { alias, queues, ...options } = settings;
  const schema = `tm_${randomBytes(6).toString('hex')}`;
  const open = () =>
    new PostgresBackend(
      alias,
      { backend: PostgresBackend, url: testPostgresUrl(), queues, options: { ...options, schema } },
      storeRules,
    );
  const backend = open();
  return {
    backend,
    reopen: async () => open(),
    cleanup: async () => {
      await backend.close();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
});
