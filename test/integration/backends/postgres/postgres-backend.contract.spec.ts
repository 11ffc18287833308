import { describeBackendContract } from '../../../../lib/backend-kit';
import { PostgresBackend } from '../../../../lib/backends/postgres/postgres.backend';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { createTestSchema } from '../../../helpers/postgres-schema';

// Jest's own functions, passed as any other runner's would be.
const runner = { describe, it, expect, beforeEach, afterEach };

// The property cases replay a hundred random programs, a round trip per store call: about
// 20 s on a quiet machine, more beside other suites.
jest.setTimeout(120_000);

// A schema of its own per test, dropped afterwards: nothing one test stores can leak into another.
describeBackendContract(runner, 'PostgresBackend', async (settings) => {
  const { alias, queues, ...options } = settings;
  const schema = await createTestSchema();
  const open = () =>
    new PostgresBackend(
      alias,
      {
        backend: PostgresBackend,
        url: schema.url,
        queues,
        options: { ...options, schema: schema.name },
      },
      storeRules,
    );
  let backend: PostgresBackend;
  try {
    backend = open();
  } catch (refused) {
    // A configuration the backend refuses leaves nothing in the schema: it goes at once.
    await schema.drop();
    throw refused;
  }
  return {
    backend,
    reopen: async () => open(),
    cleanup: async () => {
      await backend.close();
      await schema.drop();
    },
  };
});
