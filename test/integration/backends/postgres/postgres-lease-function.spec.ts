import { Client } from 'pg';

import { newRecord } from '../../../../lib/backend-kit';
import { PostgresBackend } from '../../../../lib/backends/postgres/postgres.backend';
import { SERVER_MS } from '../../../../lib/backends/postgres/postgres-clock';
import type { TaskRecord } from '../../../../lib/core/task-record.interface';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { storeRules } from '../../../../lib/lifecycle/store-rules';
import { testAlias } from '../../../helpers/test-alias';
import { createTestSchema, type TestSchema } from '../../../helpers/postgres-schema';
import { testPostgresUrl } from '../../../helpers/test-postgres-url';

// threadmill_lease mirrors lifecycle rules in SQL: these pin it to the rules as TypeScript writes them.
describe('PostgresBackend threadmill_lease (the lease in one round trip)', () => {
  let admin: Client;
  let created: TestSchema;
  let schema: string;
  let alias: string;
  let backend: PostgresBackend;

  const lease = (max = 1, workerId = 'host:1-0'): Promise<TaskRecord[]> =>
    backend.leases.acquire(['default'], { workerId, max, timeoutMs: 0 });
  /** Writes a task's stored data as something else: what a damaged row or another writer leaves. */
  const overwrite = (id: string, data: string) =>
    admin.query(`UPDATE ${schema}.threadmill_tasks SET data = $3 WHERE alias = $1 AND id = $2`, [
      alias,
      id,
      data,
    ]);

  /**
   * The statements the backend's clients send while `work` runs: node-postgres
   * sends each as a round trip of its own (no pipelining). The admin's are not counted.
   */
  const statementsOf = async (work: () => Promise<unknown>): Promise<string[]> => {
    const sent: string[] = [];
    const original = Client.prototype.query;
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      const [text] = args as [string | { text: string }];
      if (this !== admin) sent.push(typeof text === 'string' ? text : text.text);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof original;
    try {
      await work();
    } finally {
      Client.prototype.query = original;
    }
    return sent;
  };

  beforeAll(async () => {
    admin = new Client({ connectionString: testPostgresUrl() });
    await admin.connect();
  });

  afterAll(async () => {
    await admin.end();
  });

  beforeEach(async () => {
    created = await createTestSchema();
    schema = created.name;
    alias = testAlias();
    backend = new PostgresBackend(
      alias,
      { backend: PostgresBackend, url: testPostgresUrl(), options: { schema } },
      storeRules,
    );
  });

  afterEach(async () => {
    await backend.close();
    await created.drop();
  });

  it('leases a task as StoreRules.leased makes it, on its first attempt and on a later one', async () => {
    const enqueued = await backend.tasks.enqueue(
      newRecord(alias, { args: [1, 'two', { three: 3 }] }),
    );
    const [first] = await lease(1, 'host:1-0');
    expect(first).toEqual(storeRules.leased(enqueued, 'host:1-0', first.lastAttemptedAt!));
    await expect(backend.tasks.getResult(first.id)).resolves.toEqual(first);

    await backend.leases.release([first]);
    const released = await backend.tasks.getResult(first.id);
    const [second] = await lease(1, 'host:2-0');
    expect(second).toEqual(storeRules.leased(released, 'host:2-0', second.lastAttemptedAt!));
    expect(second.startedAt).toEqual(first.startedAt);
    expect(second.workerIds).toEqual(['host:1-0', 'host:2-0']);
  });

  it('stores outcomes and leases the next task in the same call, as acknowledge and acquire do', async () => {
    const [a, b] = await backend.tasks.enqueueMany([newRecord(alias), newRecord(alias)]);
    const [leasedA] = await lease();
    const done = { ...leasedA, status: TaskResultStatus.SUCCESSFUL, finishedAt: new Date() };
    const result = await backend.leases.acknowledgeAndAcquire([done, done], ['default'], {
      workerId: 'host:1-0',
      timeoutMs: 0,
    });
    expect(result.acknowledged).toEqual(['acknowledged', 'already-stored']);
    expect(result.acquired.map((record) => record.id)).toEqual([b.id]);
    expect(result.acquired[0]).toEqual(
      storeRules.leased(b, 'host:1-0', result.acquired[0].lastAttemptedAt!),
    );
    await expect(backend.tasks.getResult(a.id)).resolves.toMatchObject({
      status: TaskResultStatus.SUCCESSFUL,
    });
  });

  it('acknowledges alone in one statement (threadmill_lease leasing nothing), for 1 record and for 10', async () => {
    await backend.tasks.enqueueMany(Array.from({ length: 11 }, () => newRecord(alias)));
    const [one, ...ten] = (await lease(11)).map((record) => ({
      ...record,
      status: TaskResultStatus.SUCCESSFUL,
      finishedAt: new Date(),
    }));
    for (const batch of [[one], ten]) {
      let outcomes: unknown;
      const sent = await statementsOf(async () => {
        outcomes = await backend.leases.acknowledge(batch);
      });
      expect(sent).toEqual([expect.stringContaining('.threadmill_lease(')]);
      expect(outcomes).toEqual(batch.map(() => 'acknowledged'));
    }
    await expect(backend.reads.peek('default', 'successful', 20)).resolves.toHaveLength(11);
    await expect(backend.reads.peek('default', 'ready', 20)).resolves.toEqual([]);
  });

  it('dates results by the server clock and keeps them resultTtl, alone as with a lease', async () => {
    await backend.tasks.enqueueMany([newRecord(alias), newRecord(alias), newRecord(alias)]);
    // Finished an hour ago by the worker's clock: the store dates a result on its own.
    const finishedAt = new Date(Date.now() - 3_600_000);
    const [alone, withLease] = (await lease(2)).map((record) => ({
      ...record,
      status: TaskResultStatus.SUCCESSFUL,
      finishedAt,
    }));
    const serverMs = async () => (await admin.query<{ ms: string }>(SERVER_MS)).rows[0].ms;
    const before = Number(await serverMs());
    await backend.leases.acknowledge([alone]);
    await backend.leases.acknowledgeAndAcquire([withLease], ['default'], {
      workerId: 'host:1-0',
      timeoutMs: 0,
    });
    const after = Number(await serverMs());
    const { rows } = await admin.query<{ finished_at: string; expires_at: string }>(
      `SELECT finished_at, expires_at FROM ${schema}.threadmill_results WHERE alias = $1`,
      [alias],
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      // The backend reads the server's clock without a round trip: within a second of it.
      expect(Number(row.finished_at)).toBeGreaterThanOrEqual(before - 1000);
      expect(Number(row.finished_at)).toBeLessThanOrEqual(after + 1000);
      expect(Number(row.expires_at) - Number(row.finished_at)).toBe(24 * 3_600_000);
    }
  });

  it('leases in TypeScript when a ready task holds no JSON, failing that task and taking the next', async () => {
    const [damaged, sound] = await backend.tasks.enqueueMany([newRecord(alias), newRecord(alias)]);
    await overwrite(damaged.id, 'not json at all');
    const taken = await lease(2);
    expect(taken.map((record) => record.id)).toEqual([sound.id]);
    const failed = await backend.tasks.getResult(damaged.id);
    expect(failed.status).toBe(TaskResultStatus.FAILED);
    expect(failed.errors.map((error) => error.className)).toEqual(['CorruptTaskDataError']);
  });

  it('fails a leased task whose JSON is not a task record, and returns the others', async () => {
    const [foreign, sound] = await backend.tasks.enqueueMany([newRecord(alias), newRecord(alias)]);
    await overwrite(foreign.id, '{"id": "someone else\'s", "shape": true}');
    const taken = await lease(2);
    expect(taken.map((record) => record.id)).toEqual([sound.id]);
    await expect(backend.tasks.getResult(foreign.id)).resolves.toMatchObject({
      status: TaskResultStatus.FAILED,
    });
  });

  it("leases a task whose arguments Postgres's JSON cannot hold (a NUL character) as TypeScript does", async () => {
    const nul = await backend.tasks.enqueue(newRecord(alias, { args: ['a\u0000b'] }));
    const [taken] = await lease();
    expect(taken).toEqual(storeRules.leased(nul, 'host:1-0', taken.lastAttemptedAt!));
    expect(taken.args).toEqual(['a\u0000b']);
  });
});
