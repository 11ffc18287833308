import {
  prismaTransaction,
  type PrismaTransactionLike,
} from '../../../../../lib/backends/postgres';
import { TransactionNotOpenError } from '../../../../../lib/core/errors/transaction-not-open.error';
import { testPostgresUrl } from '../../../../helpers/test-postgres-url';
import { generatePrisma, type GeneratedPrisma } from './prisma-client';
import { callbackTransaction, describeTransactionEnqueue } from './transaction-enqueue.scenarios';

let prismaClient: GeneratedPrisma;

beforeAll(async () => {
  prismaClient = await generatePrisma();
}, 120_000);

afterAll(() => {
  prismaClient.remove();
});

const connect = (url: string) => prismaClient.connect(url);

describeTransactionEnqueue('Prisma', async (url, schema) => {
  const prisma = connect(url);
  return {
    begin: () =>
      callbackTransaction<PrismaTransactionLike>(
        (work) => prisma.$transaction(work),
        (tx) => ({
          transaction: prismaTransaction(tx),
          insertUser: async (id) => {
            await tx.$queryRawUnsafe(`INSERT INTO ${schema}.users (id) VALUES ($1)`, id);
          },
        }),
      ),
    close: () => prisma.$disconnect(),
  };
});

describe('prismaTransaction', () => {
  it('refuses the PrismaClient itself, asking for its transaction', async () => {
    const prisma = connect(testPostgresUrl());
    try {
      expect(() => prismaTransaction(prisma)).toThrow(TransactionNotOpenError);
    } finally {
      await prisma.$disconnect();
    }
  });
});
