import { Injectable, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  ClsPluginTransactional,
  getTransactionHostToken,
  Transactional,
  TransactionHost,
  type TransactionalAdapter,
} from '@nestjs-cls/transactional';
import { ClsModule, ClsService } from 'nestjs-cls';
import { Client } from 'pg';

import {
  TaskResultDoesNotExist,
  TaskService,
  ThreadmillModule,
  defineTask,
  type EnqueuedTaskResult,
  type JoinTransactionsOptions,
} from '../../../../../lib';
import { PostgresBackend } from '../../../../../lib/backends/postgres';
import { storeRules } from '../../../../../lib/lifecycle/store-rules';
import { createTestSchema, type TestSchema } from '../../../../helpers/postgres-schema';
import { testAlias } from '../../../../helpers/test-alias';
import { testPostgresUrl } from '../../../../helpers/test-postgres-url';

export const Welcome = defineTask<[string]>({ name: 'users.welcome' });

/** An ORM's connection for one TransactionHost: its adapter, over a connection a module provides. */
export interface ClsConnection {
  /** Global, so the plugin's module finds the adapter's connection token. */
  readonly module: DynamicModule;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each ORM's adapter has its own types
  readonly adapter: TransactionalAdapter<any, any, any>;
  close(): Promise<void>;
}

/** What an ORM's scenarios need: a connection to the test's database, and a write through its `tx`. */
export interface ClsOrm {
  connect(url: string): Promise<ClsConnection>;
  insertUser(tx: unknown, schema: string, id: string): Promise<void>;
}

/** The global module providing `value` under `token`. */
export function providing(token: symbol, value: unknown): DynamicModule {
  return {
    module: class ConnectionModule {},
    global: true,
    providers: [{ provide: token, useValue: value }],
    exports: [token],
  };
}

/** What runs inside a transaction after the enqueue, before it ends. */
type During = (result: EnqueuedTaskResult) => Promise<void>;

/** The app's service: writes a user and enqueues its welcome, in a `@Transactional()` method. */
export abstract class Signups {
  constructor(
    readonly tasks: TaskService,
    readonly host: TransactionHost,
    readonly alias: string,
    readonly insert: (tx: unknown, id: string) => Promise<void>,
  ) {}

  async write(id: string, during?: During, fail = false): Promise<EnqueuedTaskResult> {
    await this.insert(this.host.tx, id);
    const result = await this.tasks.enqueue(Welcome, [id], { alias: this.alias });
    await during?.(result);
    if (fail) throw new Error('the signup failed');
    return result;
  }
}

@Injectable()
export class DefaultSignups extends Signups {
  @Transactional()
  signUp(id: string, during?: During, fail = false): Promise<EnqueuedTaskResult> {
    return this.write(id, during, fail);
  }
}

export const BILLING = 'billing';

@Injectable()
export class BillingSignups extends Signups {
  @Transactional(BILLING)
  signUp(id: string, during?: During, fail = false): Promise<EnqueuedTaskResult> {
    return this.write(id, during, fail);
  }
}

/** One test's app: Threadmill on its own schema and alias, ClsModule with one plugin per connection. */
export interface ClsApp {
  readonly moduleRef: TestingModule;
  readonly alias: string;
  readonly schema: string;
  /** Another process's view of the store. */
  readonly worker: PostgresBackend;
  users(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Boots a Nest app whose ClsModule registers `connections` (by name, `''`
 * for the unnamed one) and whose ThreadmillModule joins as `join` says;
 * `signups` are built over the host of their connection.
 */
export async function bootClsApp(
  orm: ClsOrm,
  connections: readonly string[],
  join: boolean | JoinTransactionsOptions,
  signups: readonly [Type<Signups>, string][],
): Promise<ClsApp> {
  const created: TestSchema = await createTestSchema();
  const alias = testAlias();
  const url = testPostgresUrl();
  const config = { backend: PostgresBackend, url, options: { schema: created.name } };
  const admin = new Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE TABLE ${created.name}.users (id text PRIMARY KEY)`);
  const opened = await Promise.all(connections.map(() => orm.connect(url)));
  const insert = (tx: unknown, id: string) => orm.insertUser(tx, created.name, id);
  const providers: Provider[] = signups.map(([type, connection]) => ({
    provide: type,
    inject: [TaskService, getTransactionHostToken(connection || undefined)],
    useFactory: (tasks: TaskService, host: TransactionHost) =>
      new (type as unknown as new (...args: unknown[]) => Signups)(tasks, host, alias, insert),
  }));
  const moduleRef = await Test.createTestingModule({
    imports: [
      ...opened.map((connection) => connection.module),
      ClsModule.forRoot({
        global: true,
        plugins: connections.map(
          (name, i) =>
            new ClsPluginTransactional({
              connectionName: name || undefined,
              adapter: opened[i].adapter,
            }),
        ),
      }),
      ThreadmillModule.forRoot({ backends: { [alias]: config }, joinTransactions: join }),
    ],
    providers,
  }).compile();
  await moduleRef.init();
  const worker = new PostgresBackend(alias, config, storeRules);
  return {
    moduleRef,
    alias,
    schema: created.name,
    worker,
    users: async () =>
      (
        await admin.query<{ id: string }>(`SELECT id FROM ${created.name}.users ORDER BY id`)
      ).rows.map((row) => row.id),
    close: async () => {
      await worker.close();
      await moduleRef.close();
      await Promise.all(opened.map((connection) => connection.close()));
      await admin.end();
      await created.drop();
    },
  };
}

/** Leases what is ready now, without waiting. */
export const acquireNow = (app: ClsApp) =>
  app.worker.leases.acquire(['default'], { workerId: 'host:1-0', timeoutMs: 0, max: 10 });

/**
 * The scenarios every ORM passes with `joinTransactions` on: an enqueue
 * inside `@Transactional()` commits or rolls back with the app's rows, and
 * one outside stores at once.
 */
export function describeClsJoin(name: string, orm: ClsOrm): void {
  describe(`joinTransactions with @nestjs-cls/transactional's ${name} adapter, on PostgresBackend`, () => {
    let app: ClsApp;
    let signups: DefaultSignups;

    beforeEach(async () => {
      app = await bootClsApp(orm, [''], true, [[DefaultSignups, '']]);
      signups = app.moduleRef.get(DefaultSignups);
    });

    afterEach(async () => {
      await app.close();
    });

    it('leaves no task when the @Transactional() method throws', async () => {
      let enqueued: EnqueuedTaskResult | undefined;
      const during = async (result: EnqueuedTaskResult) => void (enqueued = result);
      await expect(signups.signUp('u1', during, true)).rejects.toThrow('the signup failed');
      expect(enqueued?.id).toEqual(expect.any(String));
      await expect(app.worker.tasks.getResult(enqueued!.id)).rejects.toBeInstanceOf(
        TaskResultDoesNotExist,
      );
      await expect(acquireNow(app)).resolves.toEqual([]);
      await expect(app.users()).resolves.toEqual([]);
    });

    it('stores the task only at the commit, and a worker then leases it', async () => {
      const result = await signups.signUp('u2', async (enqueued) => {
        await expect(app.worker.tasks.getResult(enqueued.id)).rejects.toBeInstanceOf(
          TaskResultDoesNotExist,
        );
        await expect(acquireNow(app)).resolves.toEqual([]);
      });
      const leased = await acquireNow(app);
      expect(leased).toMatchObject([{ id: result.id, args: ['u2'] }]);
      await expect(app.users()).resolves.toEqual(['u2']);
    });

    it('stores at once outside a transaction, in a CLS context or none', async () => {
      const tasks = app.moduleRef.get(TaskService);
      const outside = await tasks.enqueue(Welcome, ['plain'], { alias: app.alias });
      const inContext = await app.moduleRef
        .get(ClsService)
        .run(() => tasks.enqueue(Welcome, ['context'], { alias: app.alias }));
      await expect(app.worker.tasks.getResult(outside.id)).resolves.toMatchObject({
        args: ['plain'],
      });
      await expect(app.worker.tasks.getResult(inContext.id)).resolves.toMatchObject({
        args: ['context'],
      });
    });
  });
}
