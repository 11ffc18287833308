import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { waitFor } from '../../../helpers/wait-for';
import { RedisFixture, readyRecord, succeeded } from './redis-fixture';
import { runMaintenancePass } from '../../../../lib/lifecycle/maintenance-pass';

describe('RedisBackend maintenance pass', () => {
  const fixture = new RedisFixture();
  afterEach(() => fixture.cleanup());
  afterAll(() => fixture.close());

  it('runs every other step when one fails, and reports the failed one', async () => {
    const backend = fixture.backend({ leaseTtl: 50 });
    const keys = fixture.keys(backend);
    // A deferred set that is not a ZSET makes the mover fail.
    await fixture.admin.set(keys.deferred('default'), 'not a sorted set');
    const record = await backend.tasks.enqueue(readyRecord(backend.alias));
    const [leased] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
    await waitFor(() => Date.now() > leased.startedAt!.getTime() + 60, {
      what: 'the lease to end',
    });

    const report = await runMaintenancePass(backend);
    expect(report.failedSteps.map((failed) => failed.step)).toEqual(['promote']);
    expect(report.reaped).toBe(1);
    await expect(backend.tasks.getResult(record.id)).resolves.toMatchObject({
      status: TaskResultStatus.FAILED,
    });
    await expect(backend.reads.maintenanceHeartbeat()).resolves.toBeInstanceOf(Date);
  });

  it('moves at most batchSize deferred tasks per pass', async () => {
    const backend = fixture.backend({ batchSize: 2 });
    // Far enough ahead that a slow enqueue still stores them deferred.
    const runAfter = new Date(Date.now() + 500);
    await backend.tasks.enqueueMany(
      Array.from({ length: 5 }, (_, i) => readyRecord(backend.alias, { args: [i], runAfter })),
    );
    // Due on Redis's clock from when the enqueue ran there, a little after runAfter was taken.
    const [, lastDue] = await fixture.admin.zrange(
      fixture.keys(backend).deferred('default'),
      -1,
      -1,
      'WITHSCORES',
    );
    await waitFor(async () => (await fixture.storeNow()) > Number(lastDue), {
      what: 'the deferred tasks to fall due',
    });
    const promoted = [];
    for (let pass = 0; pass < 3; pass++)
      promoted.push((await runMaintenancePass(backend)).promoted);
    expect(promoted).toEqual([2, 2, 1]);
    // Deferred tasks keep their enqueue order when promoted.
    const ready = await backend.reads.peek('default', 'ready', 10);
    expect(ready.map((r) => r.args[0])).toEqual([0, 1, 2, 3, 4]);
  });

  it('reaps at most batchSize expired leases per pass, keeping what the task had', async () => {
    const backend = fixture.backend({ batchSize: 2, leaseTtl: 50 });
    await backend.tasks.enqueueMany(
      Array.from({ length: 3 }, (_, i) => readyRecord(backend.alias, { args: [i] })),
    );
    const leased = await backend.leases.acquire(['default'], {
      workerId: 'w:1-0',
      max: 3,
      timeoutMs: 0,
    });
    await waitFor(() => Date.now() > leased[0].startedAt!.getTime() + 60, {
      what: 'the leases to end',
    });
    expect((await runMaintenancePass(backend)).reaped).toBe(2);
    expect((await runMaintenancePass(backend)).reaped).toBe(1);
    const reaped = await backend.tasks.getResult(leased[0].id);
    expect(reaped).toMatchObject({
      args: [0],
      workerIds: ['w:1-0'],
      startedAt: leased[0].startedAt,
    });
    expect(reaped.errors[0].traceback).toMatch(
      /AcknowledgementTimeout: Task .* leaseTtl \(50 ms\)/,
    );
  });

  it('trims history older than resultTtl; ingress counts expire with their hour', async () => {
    const backend = fixture.backend({ resultTtl: 1000 });
    const keys = fixture.keys(backend);
    await backend.tasks.enqueue(readyRecord(backend.alias));
    const [leased] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
    await backend.leases.acknowledge([succeeded(leased)]);
    // Entries from two seconds ago, as if left by an earlier run.
    const old = Date.now() - 2000;
    await fixture.admin.zadd(keys.history('default', 'successful'), old, 'old-ok');
    await fixture.admin.zadd(keys.history('emails', 'failed'), old, 'old-failed');
    const report = await runMaintenancePass(backend);
    expect(report.trimmed).toBe(2);
    expect(await fixture.admin.zrange(keys.history('default', 'successful'), 0, -1)).toEqual([
      leased.id,
    ]);
    const hour = Math.floor(Date.now() / 3_600_000);
    const expiresAt = await fixture.admin.call('PEXPIRETIME', keys.ingress('default', hour));
    expect(expiresAt).toBe((hour + 1) * 3_600_000 + 1000);
  });

  it('leaves a task alone that was acknowledged between the reaper reading and failing it', async () => {
    const backend = fixture.backend({ leaseTtl: 50 });
    await backend.tasks.enqueue(readyRecord(backend.alias));
    const [leased] = await backend.leases.acquire(['default'], { workerId: 'w', timeoutMs: 0 });
    await waitFor(() => Date.now() > leased.startedAt!.getTime() + 60, {
      what: 'the lease to end',
    });
    // The worker was merely slow: its acknowledge lands first and wins.
    await expect(backend.leases.acknowledge([succeeded(leased, 'made it')])).resolves.toEqual([
      'acknowledged',
    ]);
    expect((await runMaintenancePass(backend)).reaped).toBe(0);
    await expect(backend.tasks.getResult(leased.id)).resolves.toMatchObject({
      returnValue: 'made it',
    });
  });
});
