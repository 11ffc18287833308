import { Test, type TestingModule } from '@nestjs/testing';
import { Client } from 'pg';

import {
  TaskResultDoesNotExist,
  TaskService,
  ThreadmillModule,
  defineTask,
  type TaskTransaction,
} from '../../../../../lib';
import { PostgresBackend } from '../../../../../lib/backends/postgres';
import { storeRules } from '../../../../../lib/lifecycle/store-rules';
import { createTestSchema, type TestSchema } from '../../../../helpers/postgres-schema';
import { testAlias } from '../../../../helpers/test-alias';
import { testPostgresUrl } from '../../../../helpers/test-postgres-url';
import { describeOutboxEnqueue } from './outbox-enqueue.scenarios';

/** One open transaction of the app, through its ORM. */
export interface AppTransaction {
  /** The ORM's handle, through Threadmill's adapter. */
  readonly transaction: TaskTransaction;
  /** Writes the app's own row in the transaction. */
  insertUser(id: string): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** An ORM connected to the test's Postgres; its app table is `<schema>.users`. */
export interface OrmHarness {
  begin(): Promise<AppTransaction>;
  close(): Promise<void>;
}

/** What an ORM's scenarios need: how to connect it to the test's database. */
export type ConnectOrm = (url: string, schema: string) => Promise<OrmHarness>;

/**
 * An app transaction run by an ORM whose transactions are callbacks
 * (`dataSource.transaction(cb)`): the callback waits until the test says
 * commit or rollback; a rollback throws out of it, as an app's would.
 */
export async function callbackTransaction<H>(
  start: (work: (handle: H) => Promise<void>) => Promise<unknown>,
  open: (handle: H) => Pick<AppTransaction, 'transaction' | 'insertUser'>,
): Promise<AppTransaction> {
  const rollback = new Error('rolled back by the test');
  let end!: (commit: boolean) => void;
  const ending = new Promise<boolean>((resolve) => (end = resolve));
  let opened!: (tx: Pick<AppTransaction, 'transaction' | 'insertUser'>) => void;
  const handed = new Promise<Pick<AppTransaction, 'transaction' | 'insertUser'>>(
    (resolve) => (opened = resolve),
  );
  const done = start(async (handle) => {
    opened(open(handle));
    if (!(await ending)) throw rollback;
  });
  const settled = done.then(
    () => undefined,
    (error: unknown) => {
      if (error !== rollback) throw error;
    },
  );
  const tx = await Promise.race([handed, settled.then(() => handed)]);
  return {
    ...tx,
    commit: async () => {
      end(true);
      await settled;
    },
    rollback: async () => {
      end(false);
      await settled;
    },
  };
}

const Welcome = defineTask<[string]>({ name: 'users.welcome' });

/**
 * The scenarios every ORM's adapter passes, on the real Postgres (and on a
 * Redis alias's outbox there, describeOutboxEnqueue): a task
 * enqueued in the app's transaction exists only if that transaction
 * commits, no worker sees it before, and its id is known at once.
 */
export function describeTransactionEnqueue(orm: string, connect: ConnectOrm): void {
  describeOutboxEnqueue(orm, connect);
  describe(`enqueue inside a ${orm} transaction, on PostgresBackend`, () => {
    let created: TestSchema;
    let alias: string;
    let moduleRef: TestingModule;
    let tasks: TaskService;
    let worker: PostgresBackend;
    let harness: OrmHarness;
    let admin: Client;

    beforeEach(async () => {
      created = await createTestSchema();
      alias = testAlias();
      const url = testPostgresUrl();
      const config = { backend: PostgresBackend, url, options: { schema: created.name } };
      admin = new Client({ connectionString: url });
      await admin.connect();
      await admin.query(`CREATE TABLE ${created.name}.users (id text PRIMARY KEY)`);
      moduleRef = await Test.createTestingModule({
        imports: [ThreadmillModule.forRoot({ backends: { [alias]: config } })],
      }).compile();
      await moduleRef.init();
      tasks = moduleRef.get(TaskService);
      // Another process's view of the store: its own pool and its own listener.
      worker = new PostgresBackend(alias, config, storeRules);
      harness = await connect(url, created.name);
    });

    /** Those a failed test left open, ended so that their connections close. */
    const open = new Set<AppTransaction>();
    const begin = async (): Promise<AppTransaction> => {
      const tx = await harness.begin();
      open.add(tx);
      const ended = (end: () => Promise<void>) => async (): Promise<void> => {
        open.delete(tx);
        await end();
      };
      return { ...tx, commit: ended(tx.commit), rollback: ended(tx.rollback) };
    };

    afterEach(async () => {
      await Promise.allSettled([...open].map((tx) => tx.rollback()));
      open.clear();
      await harness.close();
      await worker.close();
      await moduleRef.close();
      await admin.end();
      await created.drop();
    });

    const users = async (): Promise<string[]> =>
      (await admin.query<{ id: string }>(`SELECT id FROM ${created.name}.users`)).rows.map(
        (row) => row.id,
      );
    const acquireNow = () =>
      worker.leases.acquire(['default'], { workerId: 'host:1-0', timeoutMs: 0 });

    it('leaves no task when the transaction rolls back', async () => {
      const tx = await begin();
      await tx.insertUser('u1');
      const result = await tasks.enqueue(Welcome, ['u1'], { alias, transaction: tx.transaction });
      expect(result.id).toEqual(expect.any(String));
      await tx.rollback();
      await expect(worker.tasks.getResult(result.id)).rejects.toBeInstanceOf(
        TaskResultDoesNotExist,
      );
      await expect(acquireNow()).resolves.toEqual([]);
      await expect(users()).resolves.toEqual([]);
    });

    it('shows no worker the task before the commit; the commit wakes one that waits', async () => {
      const tx = await begin();
      await tx.insertUser('u2');
      const result = await tasks.enqueue(Welcome, ['u2'], { alias, transaction: tx.transaction });
      await expect(acquireNow()).resolves.toEqual([]);
      await expect(worker.tasks.getResult(result.id)).rejects.toBeInstanceOf(
        TaskResultDoesNotExist,
      );
      // A worker idle on the queue is woken by the notification the commit delivers.
      const waiting = worker.leases.acquire(['default'], {
        workerId: 'host:1-1',
        timeoutMs: 20_000,
      });
      const committedAt = Date.now();
      await tx.commit();
      const [leased] = await waiting;
      expect(leased).toMatchObject({ id: result.id, args: ['u2'] });
      // Well within the idle consumer's safety poll (5 s): the notification woke it.
      expect(Date.now() - committedAt).toBeLessThan(4000);
      await expect(users()).resolves.toEqual(['u2']);
    });

    it('commits a bulk and a unique key together with the app', async () => {
      const tx = await begin();
      await tx.insertUser('u3');
      const bulk = await tasks.enqueueMany(Welcome, [['a'], ['b'], ['c']], {
        alias,
        transaction: tx.transaction,
      });
      const keyed = { alias, key: 'welcome:u3', transaction: tx.transaction };
      const first = await tasks.enqueue(Welcome, ['u3'], keyed);
      const second = await tasks.enqueue(Welcome, ['u3'], keyed);
      expect([first.created, second.created, second.id]).toEqual([true, false, first.id]);
      await expect(acquireNow()).resolves.toEqual([]);
      await tx.commit();
      const leased = await worker.leases.acquire(['default'], {
        workerId: 'host:1-2',
        timeoutMs: 0,
        max: 10,
      });
      expect(leased.map((record) => record.id).sort()).toEqual(
        [...bulk.map((r) => r.id), first.id].sort(),
      );
    });

    it('refuses a taken id and leaves the transaction usable', async () => {
      const taken = await tasks.enqueue(Welcome, ['first'], { alias, id: 'welcome-u4' });
      const tx = await begin();
      await tx.insertUser('u4');
      const refusal: unknown = await tasks
        .enqueue(Welcome, ['again'], { alias, id: 'welcome-u4', transaction: tx.transaction })
        .catch((error: unknown) => error);
      expect(refusal).toMatchObject({ code: 'TASK_ALREADY_EXISTS' });
      await tx.insertUser('u5');
      await tx.commit();
      await expect(users()).resolves.toEqual(['u4', 'u5']);
      await expect(worker.tasks.getResult(taken.id)).resolves.toMatchObject({ args: ['first'] });
    });
  });
}
