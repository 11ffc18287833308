import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SqliteBackend } from '../../../../lib/backends/sqlite/sqlite.backend';
import { TaskResultStatus } from '../../../../lib/core/task-result-status.enum';
import { finishedRecordSource, waitForFinished } from '../../../../lib/core/wait-for-finished';
import { newRecord } from '../../../../lib/backend-kit';
import {
  isMessage,
  type SqliteChildSettings,
  type SqliteParentMessage,
} from '../../../fixtures/sqlite/sqlite-child.messages';
import { testAlias } from '../../../helpers/test-alias';
import { exited, forkTs, killChild, nextMessage } from '../../../helpers/ts-child';
import { waitFor } from '../../../helpers/wait-for';
import { storeRules } from '../../../../lib/lifecycle/store-rules';

const FIXTURES = join(__dirname, '../../../fixtures/sqlite');

// A child transpiles its TypeScript at start: seconds on a busy machine, so the deadlines are generous.
const STARTUP = { timeoutMs: 90_000, what: 'ready' };

describe('SqliteBackend across processes', () => {
  jest.setTimeout(180_000);

  let dir: string;
  let url: string;
  let alias: string;
  const children: ChildProcess[] = [];
  const backends: SqliteBackend[] = [];

  const open = (options: Record<string, unknown> = {}): SqliteBackend => {
    const backend = new SqliteBackend(alias, { backend: SqliteBackend, url, options }, storeRules);
    backends.push(backend);
    return backend;
  };

  const spawnChild = (fixture: string, settings: SqliteChildSettings): ChildProcess => {
    const child = forkTs(join(FIXTURES, fixture), [JSON.stringify(settings)]);
    children.push(child);
    return child;
  };

  const command = (child: ChildProcess, message: SqliteParentMessage): void => {
    child.send(message);
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'threadmill-sqlite-mp-'));
    url = `sqlite://${join(dir, 'threadmill.db')}`;
    alias = testAlias();
  });

  afterEach(async () => {
    await Promise.all(children.splice(0).map(killChild));
    for (const backend of backends.splice(0)) await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('hands each of 4,000 tasks to exactly one of 4 processes making 1,000 acquires each', async () => {
    const producer = open();
    const records = Array.from({ length: 4000 }, (_, i) => newRecord(alias, { args: [i] }));
    await producer.tasks.enqueueMany(records);

    const workers = [0, 1, 2, 3].map((n) =>
      spawnChild('sqlite-acquirer.child.ts', { url, alias, count: 1000, workerId: `host:${n}` }),
    );
    await Promise.all(workers.map((child) => nextMessage(child, isMessage('ready'), STARTUP)));
    const reports = workers.map((child) =>
      nextMessage(child, isMessage('acquired'), { timeoutMs: 120_000, what: 'its acquired ids' }),
    );
    // Started together, so all four contend for the write lock from the first acquire on.
    for (const child of workers) command(child, { type: 'go' });
    const results = await Promise.all(reports);
    await Promise.all(workers.map(exited));

    for (const result of results) {
      expect({ empty: result.empty, stale: result.stale, got: result.ids.length }).toEqual({
        empty: 0,
        stale: 0,
        got: 1000,
      });
    }
    const ids = results.flatMap((result) => result.ids);
    expect(new Set(ids).size).toBe(4000);
    expect(new Set(ids)).toEqual(new Set(records.map((record) => record.id)));

    const telemetry = await producer.reads.telemetry(60_000);
    expect(telemetry.queues.default.counts).toEqual({
      ready: 0,
      running: 0,
      deferred: 0,
      successful: 4000,
      failed: 0,
      cancelled: 0,
    });
    const sample = await producer.tasks.getResult(records[1234].id);
    expect(sample.status).toBe(TaskResultStatus.SUCCESSFUL);
    expect(sample.workerIds).toHaveLength(1);
  }, 300_000);

  it('hears the tasks another process finishes, and a wait for one resolves with its result', async () => {
    const listener = open();
    const records = [0, 1, 2].map((i) => newRecord(alias, { args: [i] }));
    await listener.tasks.enqueueMany(records);
    const heard: string[] = [];
    const off = await listener.feeds.subscribeFinished((tasks) => {
      heard.push(...tasks.map((task) => `${task.id} ${task.status} ${task.name}`));
    });
    const waiting = waitForFinished(finishedRecordSource(listener), records[2].id, {
      timeoutMs: 120_000,
    });
    const worker = spawnChild('sqlite-acquirer.child.ts', { url, alias, count: 3 });
    await nextMessage(worker, isMessage('ready'), STARTUP);
    command(worker, { type: 'go' });
    const finished = await waiting;
    expect(finished).toMatchObject({
      status: TaskResultStatus.SUCCESSFUL,
      returnValue: worker.pid,
    });
    await waitFor(() => heard.length === 3, { what: 'the three finishes heard' });
    expect(heard.sort()).toEqual(
      records.map((record) => `${record.id} SUCCESSFUL contract.echo`).sort(),
    );
    await off();
  });

  it('wakes a consumer waiting in another process within a few poll intervals', async () => {
    const consumer = open({ maxPollInterval: 50 });
    const producer = spawnChild('sqlite-enqueuer.child.ts', { url, alias });
    await nextMessage(producer, isMessage('ready'), STARTUP);

    // Let the consumer back off to its longest wait before the task arrives.
    const waiting = consumer.leases.acquire(['default'], { workerId: 'w', timeoutMs: 20_000 });
    const backedOff = Date.now() + 300;
    await waitFor(() => Date.now() > backedOff, { what: 'the consumer to back off' });
    const enqueued = nextMessage(producer, isMessage('enqueued'), { what: 'enqueued ids' });
    command(producer, { type: 'enqueue', count: 1 });
    const { ids } = await enqueued;
    const committed = Date.now();
    const acquired = await waiting;
    expect(acquired.map((record) => record.id)).toEqual(ids);
    // One backed-off wait (50 ms) plus scheduling slack on a loaded machine.
    expect(Date.now() - committed).toBeLessThan(1000);
  });

  it('makes one task of one unique key enqueued at once by 4 processes, in each mode', async () => {
    const producers = Array.from({ length: 4 }, () =>
      spawnChild('sqlite-enqueuer.child.ts', { url, alias }),
    );
    await Promise.all(producers.map((child) => nextMessage(child, isMessage('ready'), STARTUP)));
    const modes = [
      { key: 'once', mode: 'unfinished' },
      { key: 'window', mode: 'window', ttlMs: 60_000 },
      { key: 'debounce', mode: 'debounce', ttlMs: 60_000 },
    ] as const;
    const backend = open();
    for (const unique of modes) {
      const replies = producers.map((child) =>
        nextMessage(child, isMessage('enqueued'), { what: `ids of ${unique.mode}` }),
      );
      for (const child of producers) command(child, { type: 'enqueue', count: 25, unique });
      const ids = (await Promise.all(replies)).flatMap((reply) => reply.ids);
      expect(ids).toHaveLength(100);
      expect(new Set(ids).size).toBe(1);
      await expect(backend.tasks.getResult(ids[0])).resolves.toMatchObject({ task: { unique } });
    }
    const waiting = [
      ...(await backend.reads.peek('default', 'ready', 100)),
      ...(await backend.reads.peek('default', 'deferred', 100)),
    ];
    expect(waiting).toHaveLength(modes.length);
  });

  it('keeps every acknowledged enqueue when the producing process is killed with SIGKILL', async () => {
    const producer = spawnChild('sqlite-enqueuer.child.ts', { url, alias });
    await nextMessage(producer, isMessage('ready'), STARTUP);
    const enqueued = nextMessage(producer, isMessage('enqueued'), { what: 'enqueued ids' });
    command(producer, { type: 'enqueue', count: 50 });
    const { ids } = await enqueued;
    producer.kill('SIGKILL');
    await exited(producer);

    const reopened = open();
    const ready = await reopened.reads.peek('default', 'ready', 100);
    expect(ready.map((record) => record.id)).toEqual(ids);
  });

  it('waits out another process holding the write lock, up to busyTimeout', async () => {
    const filename = join(dir, 'threadmill.db');
    const backend = open({ busyTimeout: 20_000 });
    const holder = spawnChild('sqlite-lock-holder.child.ts', {
      url: filename,
      alias,
      holdMs: 1000,
    });
    await nextMessage(holder, isMessage('locked'), { ...STARTUP, what: 'the lock' });
    // Without the busy timeout this would fail at once with SQLITE_BUSY (next test).
    await backend.tasks.enqueue(newRecord(alias));
    await expect(backend.reads.peek('default', 'ready', 100)).resolves.toHaveLength(1);
  });

  it('lets an idle consumer wait without the write lock while another process holds it', async () => {
    const filename = join(dir, 'threadmill.db');
    // A consumer whose every check took the write lock would fail with SQLITE_BUSY after 50 ms.
    const consumer = open({ busyTimeout: 50, maxPollInterval: 20 });
    const holder = spawnChild('sqlite-lock-holder.child.ts', { url: filename, alias });
    await nextMessage(holder, isMessage('locked'), { ...STARTUP, what: 'the lock' });
    await expect(
      consumer.leases.acquire(['default'], { workerId: 'w', timeoutMs: 500 }),
    ).resolves.toEqual([]);
    await expect(consumer.reads.telemetry(60_000)).resolves.toMatchObject({
      queues: { default: { counts: { ready: 0 } } },
    });
  });

  it('fails with BackendUnavailableError when the lock is held longer than busyTimeout', async () => {
    const filename = join(dir, 'threadmill.db');
    const backend = open({ busyTimeout: 50 });
    // No holdMs: the holder keeps the lock until it is killed.
    const holder = spawnChild('sqlite-lock-holder.child.ts', { url: filename, alias });
    await nextMessage(holder, isMessage('locked'), { ...STARTUP, what: 'the lock' });
    await expect(backend.tasks.enqueue(newRecord(alias))).rejects.toMatchObject({
      name: 'BackendUnavailableError',
      message: expect.stringContaining(alias),
    });
    await killChild(holder);
    // Nothing half-written: the failed enqueue left no trace, and the next one works.
    await expect(backend.reads.peek('default', 'ready', 100)).resolves.toEqual([]);
    await backend.tasks.enqueue(newRecord(alias));
    await expect(backend.reads.peek('default', 'ready', 100)).resolves.toHaveLength(1);
  });
});
