import { NoOpTransactionalAdapter } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ClsService } from 'nestjs-cls';
import { Pool } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';

import {
  TaskResultDoesNotExist,
  TaskService,
  TransactionHandleUnusableError,
  TransactionHostNotFoundError,
  type EnqueuedTaskResult,
} from '../../../../../lib';
import { typeormTransaction } from '../../../../../lib/backends/postgres';
import { testPostgresUrl } from '../../../../helpers/test-postgres-url';
import {
  BILLING,
  BillingSignups,
  DefaultSignups,
  Welcome,
  acquireNow,
  bootClsApp,
  describeClsJoin,
  providing,
  type ClsApp,
  type ClsOrm,
} from './cls-join.scenarios';

const typeorm: ClsOrm = {
  async connect(url) {
    const dataSource = await new DataSource({ type: 'postgres', url, poolSize: 2 }).initialize();
    const token = Symbol('DataSource');
    return {
      module: providing(token, dataSource),
      adapter: new TransactionalAdapterTypeOrm({ dataSourceToken: token }),
      close: () => dataSource.destroy(),
    };
  },
  async insertUser(tx, schema, id) {
    await (tx as EntityManager).query(`INSERT INTO ${schema}.users (id) VALUES ($1)`, [id]);
  },
};

describeClsJoin('TypeORM', typeorm);

describe('joinTransactions with TypeORM', () => {
  let app: ClsApp | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('joins the TransactionHost it names, and no other', async () => {
    app = await bootClsApp(typeorm, ['', BILLING], { connectionName: BILLING }, [
      [DefaultSignups, ''],
      [BillingSignups, BILLING],
    ]);
    const { worker } = app;
    let billed: EnqueuedTaskResult | undefined;
    await expect(
      app.moduleRef
        .get(BillingSignups)
        .signUp('b1', async (result) => void (billed = result), true),
    ).rejects.toThrow('the signup failed');
    await expect(worker.tasks.getResult(billed!.id)).rejects.toBeInstanceOf(TaskResultDoesNotExist);
    // The unnamed connection's transaction is not joined: its enqueue stored at once, and stays.
    let other: EnqueuedTaskResult | undefined;
    await expect(
      app.moduleRef.get(DefaultSignups).signUp(
        'd1',
        async (result) => {
          other = result;
          await expect(worker.tasks.getResult(result.id)).resolves.toMatchObject({ args: ['d1'] });
        },
        true,
      ),
    ).rejects.toThrow('the signup failed');
    await expect(worker.tasks.getResult(other!.id)).resolves.toMatchObject({ args: ['d1'] });
    await expect(app.users()).resolves.toEqual([]);
  });

  it('lets an explicit transaction option win over the joined one', async () => {
    app = await bootClsApp(typeorm, [''], true, [[DefaultSignups, '']]);
    const signups = app.moduleRef.get(DefaultSignups);
    const tasks = app.moduleRef.get(TaskService);
    const dataSource = await new DataSource({
      type: 'postgres',
      url: testPostgresUrl(),
      poolSize: 1,
    }).initialize();
    const runner = dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      const alias = app.alias;
      const result = await signups.host.withTransaction(async () => {
        await signups.insert(signups.host.tx, 'joined');
        return tasks.enqueue(Welcome, ['explicit'], {
          alias,
          transaction: typeormTransaction(runner),
        });
      });
      // The joined transaction committed; the task was written in the explicit one, rolled back.
      await runner.rollbackTransaction();
      await expect(app.users()).resolves.toEqual(['joined']);
      await expect(app.worker.tasks.getResult(result.id)).rejects.toBeInstanceOf(
        TaskResultDoesNotExist,
      );
    } finally {
      await runner.release();
      await dataSource.destroy();
    }
  });

  it('refuses a joined handle it cannot write through, saying what to pass', async () => {
    const pool = new Pool({ connectionString: testPostgresUrl(), max: 1 });
    const noOp: ClsOrm = {
      connect: () =>
        Promise.resolve({
          module: providing(Symbol('none'), null),
          adapter: new NoOpTransactionalAdapter({ tx: pool, disableWarning: true }),
          close: () => pool.end(),
        }),
      insertUser: () => Promise.resolve(),
    };
    app = await bootClsApp(noOp, [''], true, [[DefaultSignups, '']]);
    const refusal = app.moduleRef.get(DefaultSignups).signUp('u1');
    await expect(refusal).rejects.toBeInstanceOf(TransactionHandleUnusableError);
    await expect(refusal).rejects.toThrow(/Pool.*`adapter`/s);
    await expect(acquireNow(app)).resolves.toEqual([]);
  });

  it('names the connection when no TransactionHost has it', async () => {
    app = await bootClsApp(typeorm, [''], { connectionName: 'missing' }, []);
    const tasks = app.moduleRef.get(TaskService);
    const alias = app.alias;
    const refusal = app.moduleRef
      .get(ClsService)
      .run(() => tasks.enqueue(Welcome, ['u1'], { alias }));
    await expect(refusal).rejects.toBeInstanceOf(TransactionHostNotFoundError);
    await expect(refusal).rejects.toThrow(/"missing"/);
  });
});
