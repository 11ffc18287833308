import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SqliteBackend } from '../../../../lib/backends/sqlite/sqlite.backend';
import { describeBackendContract } from '../../../../lib/backend-kit';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

// Jest's own functions, passed as any other runner's would be.
const runner = { describe, it, expect, beforeEach, afterEach };

// A fresh database file per test: nothing one test stores can leak into another.
describeBackendContract(runner, 'sqlite', async (settings) => {
  const dir = mkdtempSync(join(tmpdir(), 'threadmill-sqlite-contract-'));
  const open = () =>
    new SqliteBackend(
      settings.alias,
      {
        backend: SqliteBackend,
        url: `sqlite://${join(dir, 'threadmill.db')}`,
        queues: settings.queues,
        options: {
          leaseTtl: settings.leaseTtl,
          resultTtl: settings.resultTtl,
          maintenanceInterval: settings.maintenanceInterval,
          batchSize: settings.batchSize,
          ...(settings.retention && { retention: settings.retention }),
        },
      },
      storeRules,
    );
  const backend = open();
  return {
    backend,
    reopen: async () => open(),
    // The contract closes the backend after cleanup; the directory goes with the file handle released by then.
    cleanup: async () => {
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
