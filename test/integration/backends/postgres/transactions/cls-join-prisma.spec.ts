import { TransactionalAdapterPrisma } from '@nestjs-cls/transactional-adapter-prisma';

import type { PrismaTransactionLike } from '../../../../../lib/backends/postgres';
import { describeClsJoin, providing } from './cls-join.scenarios';
import { generatePrisma, type GeneratedPrisma, type PrismaClientLike } from './prisma-client';

let prismaClient: GeneratedPrisma;

beforeAll(async () => {
  prismaClient = await generatePrisma();
}, 120_000);

afterAll(() => {
  prismaClient.remove();
});

describeClsJoin('Prisma', {
  connect(url) {
    const prisma = prismaClient.connect(url);
    const token = Symbol('PrismaClient');
    return Promise.resolve({
      module: providing(token, prisma),
      adapter: new TransactionalAdapterPrisma<PrismaClientLike>({ prismaInjectionToken: token }),
      close: () => prisma.$disconnect(),
    });
  },
  async insertUser(tx, schema, id) {
    await (tx as PrismaTransactionLike).$queryRawUnsafe(
      `INSERT INTO ${schema}.users (id) VALUES ($1)`,
      id,
    );
  },
});
